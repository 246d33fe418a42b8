/*
 * The in-process "network" of the TLS library measurements: a BIO with no buffer, as Sluice's
 * engine uses, that reads one wire and writes the other, so that a client and a server SSL in one
 * process handshake with each other. Include after the OpenSSL (or BoringSSL) headers.
 */
#ifndef SLUICE_WIRE_BIO_H
#define SLUICE_WIRE_BIO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wire {
  unsigned char bytes[1 << 17];
  int length;
};

struct side {
  struct wire *in, *out;
};

static struct wire to_server, to_client;
static struct side server_side = {&to_server, &to_client}, client_side = {&to_client, &to_server};

static int wire_write(BIO *bio, const char *data, int length) {
  struct wire *w = ((struct side *)BIO_get_data(bio))->out;
  if (w->length + length > (int)sizeof w->bytes) {
    return -1;
  }
  memcpy(w->bytes + w->length, data, length);
  w->length += length;
  return length;
}

static int wire_read(BIO *bio, char *data, int length) {
  struct wire *w = ((struct side *)BIO_get_data(bio))->in;
  BIO_clear_retry_flags(bio);
  if (w->length == 0) {
    BIO_set_retry_read(bio);
    return -1;
  }
  int n = length < w->length ? length : w->length;
  memcpy(data, w->bytes, n);
  memmove(w->bytes, w->bytes + n, w->length - n);
  w->length -= n;
  return n;
}

static long wire_ctrl(BIO *bio, int command, long value, void *pointer) {
  (void)bio;
  (void)value;
  (void)pointer;
  return command == BIO_CTRL_FLUSH ? 1 : 0;
}

static BIO_METHOD *wire_method;

/* Makes the wire's BIO method; call once before the first attach. */
static void wire_setup(void) {
  wire_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "wire");
  BIO_meth_set_write(wire_method, wire_write);
  BIO_meth_set_read(wire_method, wire_read);
  BIO_meth_set_ctrl(wire_method, wire_ctrl);
}

static void attach(SSL *ssl, struct side *side) {
  BIO *bio = BIO_new(wire_method);
  BIO_set_init(bio, 1);
  BIO_set_data(bio, side);
  SSL_set_bio(ssl, bio, bio);
}

static void fail(const char *what) {
  fprintf(stderr, "%s\n", what);
  ERR_print_errors_fp(stderr);
  exit(1);
}

#endif
