/*
 * What libssl keeps per established server connection, counted by its own allocator hook
 * (CRYPTO_set_mem_functions): live bytes and allocations per connection after N handshakes, by the
 * source line of libssl/libcrypto that allocated them, and the heap chunks glibc's malloc holds for
 * them. The server is set up as Sluice's OpenSSL engine sets up its own (SSL_MODE_RELEASE_BUFFERS,
 * no compression, no renegotiation, a session id context, the intermediate groups, a BIO with no
 * buffer); each connection does a full handshake with an in-process client, echoes one small record
 * each way, and is kept while its client is freed. No JVM, no socket: OpenSSL's share of a parked
 * TLS pair, the same for every proxy built on this library.
 *
 *   cc -O2 -o openssl-connection-memory openssl-connection-memory.c -lssl -lcrypto
 *   ./openssl-connection-memory [connections (2000)] [1.3|1.2] [rsa|ecdsa]
 *
 * Needs the OpenSSL headers (Debian: libssl-dev) and writes its test key and certificate to the
 * current directory.
 */
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire-bio.h"

/* ---- live allocations by source line ---- */

#define MAX_SITES 4096

struct site {
  const char *file;
  int line;
  long bytes;  /* live bytes asked for */
  long chunks; /* what glibc would hold for them without this counter's own header */
  long count;  /* live allocations */
};

static struct site sites[MAX_SITES];
static int site_count;
static int counting; /* only the kept connections' allocations are counted */

struct header {
  size_t size;
  int site; /* -1: not counted */
  int pad;
};

/* The chunk glibc's malloc takes for n bytes on x86-64 (its 8-byte size field, 16-byte steps). */
static size_t chunk_of(size_t n) {
  size_t c = (n + 8 + 15) & ~(size_t)15;
  return c < 32 ? 32 : c;
}

static int site_of(const char *file, int line) {
  for (int i = 0; i < site_count; i++) {
    if (sites[i].line == line && (sites[i].file == file || strcmp(sites[i].file, file) == 0)) {
      return i;
    }
  }
  if (site_count == MAX_SITES) {
    return -1;
  }
  sites[site_count].file = file;
  sites[site_count].line = line;
  return site_count++;
}

static void count(int site, size_t n, int sign) {
  if (site >= 0) {
    sites[site].bytes += sign * (long)n;
    sites[site].chunks += sign * (long)chunk_of(n);
    sites[site].count += sign;
  }
}

static void *counted_malloc(size_t n, const char *file, int line) {
  struct header *h = malloc(sizeof(struct header) + n);
  if (h == NULL) {
    return NULL;
  }
  h->size = n;
  h->site = counting ? site_of(file, line) : -1;
  count(h->site, n, 1);
  return h + 1;
}

static void counted_free(void *p, const char *file, int line) {
  (void)file;
  (void)line;
  if (p != NULL) {
    struct header *h = (struct header *)p - 1;
    count(h->site, h->size, -1);
    free(h);
  }
}

static void *counted_realloc(void *p, size_t n, const char *file, int line) {
  if (p == NULL) {
    return counted_malloc(n, file, line);
  }
  struct header *h = (struct header *)p - 1;
  size_t old = h->size;
  struct header *moved = realloc(h, sizeof(struct header) + n);
  if (moved == NULL) {
    return NULL;
  }
  count(moved->site, old, -1);
  moved->size = n;
  count(moved->site, n, 1);
  return moved + 1;
}

static void make_key(const char *kind) {
  EVP_PKEY *key = strcmp(kind, "rsa") == 0 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
  X509 *cert = X509_new();
  if (key == NULL || cert == NULL) {
    fail("cannot make a key");
  }
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME_add_entry_by_txt(
      X509_get_subject_name(cert), "CN", MBSTRING_ASC, (unsigned char *)"localhost", -1, -1, 0);
  X509_set_issuer_name(cert, X509_get_subject_name(cert));
  X509_sign(cert, key, EVP_sha256());
  FILE *f = fopen("openssl-connection-memory.pem", "w");
  PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL);
  PEM_write_X509(f, cert);
  fclose(f);
  X509_free(cert);
  EVP_PKEY_free(key);
}

static int by_chunks(const void *a, const void *b) {
  long x = ((const struct site *)a)->chunks, y = ((const struct site *)b)->chunks;
  return x < y ? 1 : x > y ? -1 : 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  const char *version = argc > 2 ? argv[2] : "1.3";
  const char *kind = argc > 3 ? argv[3] : "rsa";
  if (n <= 0 || (strcmp(version, "1.3") != 0 && strcmp(version, "1.2") != 0)
      || (strcmp(kind, "rsa") != 0 && strcmp(kind, "ecdsa") != 0)) {
    fprintf(stderr, "usage: %s [connections] [1.3|1.2] [rsa|ecdsa]\n", argv[0]);
    return 2;
  }
  if (!CRYPTO_set_mem_functions(counted_malloc, counted_realloc, counted_free)) {
    fail("CRYPTO_set_mem_functions refused: OpenSSL allocated before main");
  }
  make_key(kind);
  wire_setup();

  SSL_CTX *server = SSL_CTX_new(TLS_server_method());
  SSL_CTX *client = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_options(server, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION
                                  | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(server, SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_min_proto_version(server, TLS1_2_VERSION);
  SSL_CTX_set1_groups_list(server, "X25519:P-256:P-384");
  SSL_CTX_set_session_id_context(server, (const unsigned char *)"sluice", 6);
  if (SSL_CTX_use_PrivateKey_file(server, "openssl-connection-memory.pem", SSL_FILETYPE_PEM) != 1
      || SSL_CTX_use_certificate_file(server, "openssl-connection-memory.pem", SSL_FILETYPE_PEM)
             != 1) {
    fail("cannot load the key");
  }
  SSL_CTX_set_max_proto_version(client,
                                strcmp(version, "1.3") == 0 ? TLS1_3_VERSION : TLS1_2_VERSION);

  SSL **kept = calloc(n, sizeof(SSL *));
  for (int i = -1; i < n; i++) { /* connection -1 warms OpenSSL's caches up, uncounted */
    counting = i >= 0;
    SSL *s = SSL_new(server);
    int was = counting;
    counting = 0; /* the client's allocations are not the server's */
    SSL *c = SSL_new(client);
    attach(c, &client_side);
    SSL_set_connect_state(c);
    counting = was;
    attach(s, &server_side);
    SSL_set_accept_state(s);
    for (int step = 0; step < 10 && !(SSL_is_init_finished(s) && SSL_is_init_finished(c)); step++) {
      counting = 0;
      SSL_do_handshake(c);
      counting = was;
      SSL_do_handshake(s);
    }
    if (!SSL_is_init_finished(s)) {
      fail("the handshake did not finish");
    }
    char buffer[64];
    counting = 0;
    SSL_write(c, "ping", 4);
    counting = was;
    int got = SSL_read(s, buffer, sizeof buffer);
    if (got != 4 || SSL_write(s, buffer, got) != got) {
      fail("the echo failed");
    }
    counting = 0;
    if (SSL_read(c, buffer, sizeof buffer) != 4) {
      fail("the client got no echo");
    }
    SSL_free(c);
    counting = was;
    to_server.length = to_client.length = 0;
    if (i >= 0) {
      kept[i] = s;
    } else {
      SSL_free(s);
    }
  }
  counting = 0;

  long bytes = 0, chunks = 0, count = 0;
  for (int i = 0; i < site_count; i++) {
    bytes += sites[i].bytes;
    chunks += sites[i].chunks;
    count += sites[i].count;
  }
  printf("%s, TLS %s, %s, %d connections kept\n", OpenSSL_version(OPENSSL_VERSION), version, kind,
         n);
  printf("per connection: %.0f B asked for in %.1f allocations; %.0f B of malloc chunks\n",
         (double)bytes / n, (double)count / n, (double)chunks / n);
  qsort(sites, site_count, sizeof sites[0], by_chunks);
  printf("%10s %10s %8s  %s\n", "chunk B", "asked B", "allocs", "allocated at");
  for (int i = 0; i < site_count; i++) {
    if (sites[i].count * 10 >= n) { /* at least one connection in ten */
      printf("%10.0f %10.0f %8.2f  %s:%d\n", (double)sites[i].chunks / n,
             (double)sites[i].bytes / n, (double)sites[i].count / n, sites[i].file, sites[i].line);
    }
  }
  for (int i = 0; i < n; i++) {
    SSL_free(kept[i]);
  }
  return 0;
}
