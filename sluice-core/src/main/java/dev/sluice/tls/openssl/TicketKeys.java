package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Session-ticket keys from a file in HAProxy's {@code tls-ticket-keys} format: one base64 key per
 * line, 48 bytes (a 16-byte name, an AES-128 key, a 16-byte HMAC-SHA256 key) or 80 (name, AES-256,
 * 32-byte HMAC key), all of one size. As in HAProxy, the last three keys decrypt tickets and the
 * penultimate one encrypts new ones (with fewer than three, all decrypt and the penultimate, or the
 * only one, encrypts): rotate by appending a key and reloading. Two processes given the same file
 * resume each other's tickets.
 */
@SuppressWarnings("restricted") // native calls are this package's job
public final class TicketKeys {
  private static final int NAME = 16;
  private static final int DECRYPTING = 3;
  private static final int OSSL_PARAM_UTF8_STRING = 4;
  private static final int OSSL_PARAM_OCTET_STRING = 5;
  private static final long PARAM_SIZE = 40; // struct ossl_param_st
  private static final long UNMODIFIED = -1;

  /**
   * One key: its name and, in native memory, its AES key, its HMAC key, and the HMAC parameters
   * OpenSSL 3 takes (BoringSSL takes the key itself).
   */
  private record Key(byte[] name, MemorySegment aes, MemorySegment hmac, MemorySegment macParams) {}

  private final List<Key> decrypting;
  private final Key encrypting;
  private final boolean aes256;
  private final String source;

  private TicketKeys(List<Key> decrypting, Key encrypting, boolean aes256, String source) {
    this.decrypting = decrypting;
    this.encrypting = encrypting;
    this.aes256 = aes256;
    this.source = source;
  }

  /**
   * Checks {@code file} without loading it (no OpenSSL needed).
   *
   * @throws GeneralSecurityException naming the file and what is wrong with it
   */
  public static void check(Path file) throws GeneralSecurityException {
    read(file).forEach(key -> java.util.Arrays.fill(key, (byte) 0));
  }

  /**
   * Reads {@code file}.
   *
   * @throws GeneralSecurityException naming the file and what is wrong with it
   */
  public static TicketKeys load(Path file) throws GeneralSecurityException {
    List<byte[]> raw = read(file);
    int size = raw.get(0).length;
    // Native memory for as long as this object lives: the callback reads it during handshakes.
    Arena arena = Arena.ofAuto();
    List<Key> keys = new ArrayList<>();
    for (byte[] key : raw.subList(Math.max(0, raw.size() - DECRYPTING), raw.size())) {
      keys.add(key(arena, key));
    }
    Key encrypting = keys.get(keys.size() >= 2 ? keys.size() - 2 : 0); // the file's penultimate
    return new TicketKeys(List.copyOf(keys), encrypting, size == 80, file.toString());
  }

  private static List<byte[]> read(Path file) throws GeneralSecurityException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new GeneralSecurityException(file + ": cannot read the ticket keys: " + e, e);
    }
    List<byte[]> raw = new ArrayList<>();
    int size = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      byte[] key;
      try {
        key = Base64.getDecoder().decode(line);
      } catch (IllegalArgumentException e) {
        throw new GeneralSecurityException(
            file + ":" + (i + 1) + ": not base64: " + e.getMessage());
      }
      if (key.length != 48 && key.length != 80) {
        throw new GeneralSecurityException(
            file + ":" + (i + 1) + ": a ticket key has 48 or 80 bytes, not " + key.length);
      }
      if (size != 0 && key.length != size) {
        throw new GeneralSecurityException(
            file + ":" + (i + 1) + ": keys of " + size + " and " + key.length + " bytes mixed");
      }
      size = key.length;
      raw.add(key);
    }
    if (raw.isEmpty()) {
      throw new GeneralSecurityException(file + ": holds no ticket key");
    }
    return raw;
  }

  private static Key key(Arena arena, byte[] key) {
    int secret = (key.length - NAME) / 2;
    byte[] name = java.util.Arrays.copyOfRange(key, 0, NAME);
    MemorySegment aes =
        arena.allocateFrom(JAVA_BYTE, java.util.Arrays.copyOfRange(key, NAME, NAME + secret));
    MemorySegment hmac =
        arena.allocateFrom(JAVA_BYTE, java.util.Arrays.copyOfRange(key, NAME + secret, key.length));
    MemorySegment digest = arena.allocateFrom("SHA256");
    MemorySegment params = arena.allocate(PARAM_SIZE * 3, 8);
    param(params, 0, arena.allocateFrom("key"), OSSL_PARAM_OCTET_STRING, hmac, secret);
    param(params, 1, arena.allocateFrom("digest"), OSSL_PARAM_UTF8_STRING, digest, 6);
    param(params, 2, MemorySegment.NULL, 0, MemorySegment.NULL, 0); // the end
    java.util.Arrays.fill(key, (byte) 0);
    return new Key(name, aes, hmac, params);
  }

  private static void param(
      MemorySegment params, int index, MemorySegment key, int type, MemorySegment data, long size) {
    long at = index * PARAM_SIZE;
    params.set(ADDRESS, at, key);
    params.set(JAVA_INT, at + 8, type);
    params.set(ADDRESS, at + 16, data);
    params.set(JAVA_LONG, at + 24, size);
    params.set(JAVA_LONG, at + 32, key.equals(MemorySegment.NULL) ? 0 : UNMODIFIED);
  }

  @Override
  public String toString() {
    return "TicketKeys[" + decrypting.size() + " from " + source + "]";
  }

  /** Makes {@code ctx} encrypt and decrypt its tickets with these keys. */
  void install(MemorySegment ctx) throws GeneralSecurityException {
    try {
      OpenSsl.check(
          (int) OpenSsl.Lib.SSL_CTX_SET_TLSEXT_TICKET_KEY_CB.invokeExact(ctx, Callback.STUB),
          "cannot install the ticket key callback");
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /**
   * int (*)(SSL *s, unsigned char key_name[16], unsigned char iv[16], EVP_CIPHER_CTX *ctx,
   * EVP_MAC_CTX *hctx, int enc) (BoringSSL: HMAC_CTX *hctx): 1 with the ticket's keys set, 2 when a
   * ticket decrypts but is not under the encrypting key (OpenSSL then issues a fresh one), 0 for a
   * ticket of no known key (a full handshake), -1 on failure.
   */
  int onTicket(
      MemorySegment keyName,
      MemorySegment iv,
      MemorySegment cipher,
      MemorySegment mac,
      boolean encrypt)
      throws Throwable {
    MemorySegment aesCipher =
        aes256
            ? (MemorySegment) OpenSsl.Lib.EVP_AES_256_CBC.invokeExact()
            : (MemorySegment) OpenSsl.Lib.EVP_AES_128_CBC.invokeExact();
    MemorySegment name = keyName.reinterpret(NAME);
    MemorySegment ivBytes = iv.reinterpret(16);
    if (encrypt) {
      if ((int) OpenSsl.Lib.RAND_BYTES.invokeExact(ivBytes, 16) != 1) {
        return -1;
      }
      MemorySegment.copy(MemorySegment.ofArray(encrypting.name()), 0, name, 0, NAME);
      if ((int)
              OpenSsl.Lib.EVP_ENCRYPT_INIT_EX.invokeExact(
                  cipher, aesCipher, MemorySegment.NULL, encrypting.aes(), ivBytes)
          != 1) {
        return -1;
      }
      return keyMac(mac, encrypting) ? 1 : -1;
    }
    for (Key key : decrypting) {
      if (MemorySegment.mismatch(name, 0, NAME, MemorySegment.ofArray(key.name()), 0, NAME) == -1) {
        if (!keyMac(mac, key)
            || (int)
                    OpenSsl.Lib.EVP_DECRYPT_INIT_EX.invokeExact(
                        cipher, aesCipher, MemorySegment.NULL, key.aes(), ivBytes)
                != 1) {
          return -1;
        }
        return key == encrypting ? 1 : 2;
      }
    }
    return 0;
  }

  /** Keys the ticket's HMAC-SHA256 with {@code key}'s HMAC key. */
  private static boolean keyMac(MemorySegment mac, Key key) throws Throwable {
    if (OpenSsl.BORING) {
      MemorySegment sha256 = (MemorySegment) OpenSsl.Lib.EVP_SHA256.invokeExact();
      return (int)
              OpenSsl.Lib.HMAC_INIT_EX.invokeExact(
                  mac, key.hmac(), key.hmac().byteSize(), sha256, MemorySegment.NULL)
          == 1;
    }
    return (int) OpenSsl.Lib.EVP_MAC_CTX_SET_PARAMS.invokeExact(mac, key.macParams()) == 1;
  }

  /** The upcall, dispatched to the keys of the server whose handshake runs on this thread. */
  static final class Callback {
    static final MemorySegment STUB;

    static {
      try {
        STUB =
            Linker.nativeLinker()
                .upcallStub(
                    MethodHandles.lookup()
                        .findStatic(
                            Callback.class,
                            "onTicket",
                            MethodType.methodType(
                                int.class,
                                MemorySegment.class,
                                MemorySegment.class,
                                MemorySegment.class,
                                MemorySegment.class,
                                MemorySegment.class,
                                int.class)),
                    FunctionDescriptor.of(
                        JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT),
                    Arena.global());
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private Callback() {}

    private static int onTicket(
        MemorySegment ssl,
        MemorySegment keyName,
        MemorySegment iv,
        MemorySegment cipher,
        MemorySegment mac,
        int enc) {
      try {
        if (CallbackBio.current() instanceof OpenSslEngine engine
            && engine.owner() instanceof OpenSslServerContext server
            && server.ticketKeys() != null) {
          return server.ticketKeys().onTicket(keyName, iv, cipher, mac, enc == 1);
        }
        return -1;
      } catch (Throwable e) {
        return -1;
      }
    }
  }
}
