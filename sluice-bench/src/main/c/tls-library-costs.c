/*
 * What a TLS library costs a proxy, for any library with OpenSSL's API (OpenSSL 3, BoringSSL):
 *   1. memory: the malloc chunks in use (glibc's mallinfo2) per established server connection,
 *      after N full handshakes with an in-process client and one small record echoed each way,
 *      the server's SSL kept and the client's freed; the server context set up as Sluice's engine
 *      sets up its own (release buffers, a session id context, the intermediate groups, a BIO with
 *      no buffer);
 *   2. AES-128-GCM: GB/s of one core sealing 16 KiB records through the EVP interface.
 * No JVM and no socket: the library's own share, the same for every proxy built on it.
 *
 *   cc -O2 -o tls-costs-openssl tls-library-costs.c -lssl -lcrypto        (Debian: libssl-dev)
 *   cc -O2 -I/usr/include/android -o tls-costs-boringssl tls-library-costs.c \
 *      -L/usr/lib/x86_64-linux-gnu/android -l:libssl.so.0 -l:libcrypto.so.0 \
 *      -Wl,-rpath,/usr/lib/x86_64-linux-gnu/android          (Debian: android-libboringssl-dev)
 *   openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 2 -keyout k.pem -out c.pem
 *   cat k.pem c.pem > key-and-cert.pem
 *   ./tls-costs-openssl key-and-cert.pem [connections (2000)] [1.3|1.2]
 *
 * Every handshake must finish and every echo come back, or the program stops.
 */
#include <malloc.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire-bio.h"

/* One connection: a full handshake, "ping" echoed, the client freed; returns the server's SSL. */
static SSL *connection(SSL_CTX *server, SSL_CTX *client) {
  SSL *s = SSL_new(server);
  SSL *c = SSL_new(client);
  attach(c, &client_side);
  SSL_set_connect_state(c);
  attach(s, &server_side);
  SSL_set_accept_state(s);
  for (int step = 0; step < 10 && !(SSL_is_init_finished(s) && SSL_is_init_finished(c)); step++) {
    SSL_do_handshake(c);
    SSL_do_handshake(s);
  }
  if (!SSL_is_init_finished(s) || !SSL_is_init_finished(c)) {
    fail("the handshake did not finish");
  }
  char buffer[64];
  if (SSL_write(c, "ping", 4) != 4) {
    fail("the client could not write");
  }
  int got = SSL_read(s, buffer, sizeof buffer);
  if (got != 4 || memcmp(buffer, "ping", 4) != 0 || SSL_write(s, buffer, got) != got) {
    fail("the echo failed");
  }
  if (SSL_read(c, buffer, sizeof buffer) != 4 || memcmp(buffer, "ping", 4) != 0) {
    fail("the client got no echo");
  }
  SSL_free(c);
  to_server.length = to_client.length = 0;
  return s;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* GB/s of AES-128-GCM sealing 16 KiB records (the best of three rounds of 1 GiB). */
static double gcm_gigabytes_per_second(void) {
  static unsigned char in[16384], out[16384 + 16];
  unsigned char key[16] = {1}, iv[12] = {2}, tag[16];
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  double best = 0;
  for (int round = 0; round < 3; round++) {
    double start = cpu_seconds();
    for (int i = 0; i < 65536; i++) {
      int n, last;
      iv[0] = (unsigned char)i;
      if (EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), NULL, key, iv) != 1
          || EVP_EncryptUpdate(ctx, NULL, &n, (const unsigned char *)"header", 6) != 1
          || EVP_EncryptUpdate(ctx, out, &n, in, sizeof in) != 1
          || EVP_EncryptFinal_ex(ctx, out + n, &last) != 1 || n + last != (int)sizeof in
          || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) {
        fail("AES-128-GCM failed");
      }
    }
    double rate = 65536.0 * sizeof in / (cpu_seconds() - start) / 1e9;
    best = rate > best ? rate : best;
  }
  EVP_CIPHER_CTX_free(ctx);
  return best;
}

int main(int argc, char **argv) {
  const char *pem = argc > 1 ? argv[1] : NULL;
  int n = argc > 2 ? atoi(argv[2]) : 2000;
  const char *version = argc > 3 ? argv[3] : "1.3";
  if (pem == NULL || n <= 0 || (strcmp(version, "1.3") != 0 && strcmp(version, "1.2") != 0)) {
    fprintf(stderr, "usage: %s KEY_AND_CERT.pem [connections] [1.3|1.2]\n", argv[0]);
    return 2;
  }
  wire_setup();

  SSL_CTX *server = SSL_CTX_new(TLS_server_method());
  SSL_CTX *client = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_mode(server, SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_min_proto_version(server, TLS1_2_VERSION);
  SSL_CTX_set1_curves_list(server, "X25519:P-256:P-384");
  SSL_CTX_set_session_id_context(server, (const unsigned char *)"sluice", 6);
  if (SSL_CTX_use_PrivateKey_file(server, pem, SSL_FILETYPE_PEM) != 1
      || SSL_CTX_use_certificate_file(server, pem, SSL_FILETYPE_PEM) != 1) {
    fail("cannot load the key and certificate");
  }
  SSL_CTX_set_max_proto_version(client,
                                strcmp(version, "1.3") == 0 ? TLS1_3_VERSION : TLS1_2_VERSION);

  SSL_free(connection(server, client)); /* warms the library's caches up, uncounted */
  SSL **kept = calloc(n, sizeof(SSL *));
  size_t before = mallinfo2().uordblks;
  for (int i = 0; i < n; i++) {
    kept[i] = connection(server, client);
  }
  size_t after = mallinfo2().uordblks;
  printf("%s: %s with %s\n", OpenSSL_version(OPENSSL_VERSION), SSL_get_version(kept[n - 1]),
         SSL_CIPHER_get_name(SSL_get_current_cipher(kept[n - 1])));
  printf("per established server connection (%d kept): %.0f B of malloc chunks in use\n", n,
         (double)(after - before) / n);
  printf("AES-128-GCM, 16 KiB records, one core: %.2f GB/s\n", gcm_gigabytes_per_second());
  for (int i = 0; i < n; i++) {
    SSL_free(kept[i]);
  }
  free(kept);
  SSL_CTX_free(server);
  SSL_CTX_free(client);
  return 0;
}
