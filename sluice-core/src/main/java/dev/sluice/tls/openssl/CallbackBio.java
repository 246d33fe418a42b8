package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * A BIO with no buffer of its own: OpenSSL reads ciphertext straight from the buffer the engine is
 * unwrapping and writes it straight to the one it is wrapping into, through upcalls to the engine
 * whose call is running on this thread. So between calls no ciphertext is held in OpenSSL (with
 * SSL_MODE_RELEASE_BUFFERS not even its record buffers), and none is copied into a memory BIO and
 * out again.
 */
@SuppressWarnings("restricted") // native calls are this package's job
final class CallbackBio {
  /** The side of an engine call the BIO reads from and writes to. */
  interface Io {
    /** Copies up to {@code length} bytes of ciphertext into {@code into}; 0 when none is left. */
    int readCiphertext(MemorySegment into, int length);

    /** Takes all {@code length} bytes of ciphertext OpenSSL wrote. */
    void writeCiphertext(MemorySegment from, int length);
  }

  private static final int RETRY_FLAGS = 0x0f; // BIO_FLAGS_RWS | BIO_FLAGS_SHOULD_RETRY

  /** The engine whose OpenSSL call is running on each thread. */
  private static final ThreadLocal<Io[]> CURRENT = ThreadLocal.withInitial(() -> new Io[1]);

  private static volatile MemorySegment method;

  private CallbackBio() {}

  /** Makes {@code io} the target of this thread's BIO calls; returns the slot to clear after. */
  static Io[] enter(Io io) {
    Io[] slot = CURRENT.get();
    slot[0] = io;
    return slot;
  }

  /** The engine whose OpenSSL call is running on this thread, or null. */
  static Io current() {
    return CURRENT.get()[0];
  }

  /** A new BIO of this kind (to be owned by an SSL through SSL_set_bio). */
  static MemorySegment newBio() {
    try {
      MemorySegment bio = (MemorySegment) OpenSsl.Lib.BIO_NEW.invokeExact(method());
      if (bio.equals(MemorySegment.NULL)) {
        throw new OutOfMemoryError(OpenSsl.describe("BIO_new failed"));
      }
      OpenSsl.Lib.BIO_SET_INIT.invokeExact(bio, 1);
      return bio;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /** The BIO_METHOD, made once per process: its upcall stubs live as long as the process. */
  static MemorySegment method() {
    MemorySegment m = method;
    if (m == null) {
      synchronized (CallbackBio.class) {
        if (method == null) {
          method = create();
        }
        m = method;
      }
    }
    return m;
  }

  private static MemorySegment create() {
    try {
      Linker linker = Linker.nativeLinker();
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      MemorySegment write =
          linker.upcallStub(
              lookup.findStatic(
                  CallbackBio.class,
                  "write",
                  MethodType.methodType(
                      int.class, MemorySegment.class, MemorySegment.class, int.class)),
              FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
              Arena.global());
      MemorySegment read =
          linker.upcallStub(
              lookup.findStatic(
                  CallbackBio.class,
                  "read",
                  MethodType.methodType(
                      int.class, MemorySegment.class, MemorySegment.class, int.class)),
              FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
              Arena.global());
      MemorySegment ctrl =
          linker.upcallStub(
              lookup.findStatic(
                  CallbackBio.class,
                  "ctrl",
                  MethodType.methodType(
                      long.class, MemorySegment.class, int.class, long.class, MemorySegment.class)),
              FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS),
              Arena.global());
      int type = (int) OpenSsl.Lib.BIO_GET_NEW_INDEX.invokeExact();
      MemorySegment name = Arena.global().allocateFrom("sluice");
      MemorySegment m =
          (MemorySegment)
              OpenSsl.Lib.BIO_METH_NEW.invokeExact(type | OpenSsl.BIO_TYPE_SOURCE_SINK, name);
      if (m.equals(MemorySegment.NULL)) {
        throw new IllegalStateException(OpenSsl.describe("BIO_meth_new failed"));
      }
      int ok = (int) OpenSsl.Lib.BIO_METH_SET_WRITE.invokeExact(m, write);
      ok &= (int) OpenSsl.Lib.BIO_METH_SET_READ.invokeExact(m, read);
      ok &= (int) OpenSsl.Lib.BIO_METH_SET_CTRL.invokeExact(m, ctrl);
      if (ok != 1) {
        throw new IllegalStateException(OpenSsl.describe("BIO_meth_set_* failed"));
      }
      return m;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  // Upcalls: an exception thrown out of one would end the JVM, so each catches everything.

  private static int write(MemorySegment bio, MemorySegment data, int length) {
    try {
      Io io = CURRENT.get()[0];
      if (io == null || length < 0) {
        return -1;
      }
      OpenSsl.Lib.BIO_CLEAR_FLAGS.invokeExact(bio, RETRY_FLAGS);
      io.writeCiphertext(data.reinterpret(length), length);
      return length;
    } catch (Throwable e) {
      return -1;
    }
  }

  private static int read(MemorySegment bio, MemorySegment into, int length) {
    try {
      Io io = CURRENT.get()[0];
      if (io == null || length < 0) {
        return -1;
      }
      OpenSsl.Lib.BIO_CLEAR_FLAGS.invokeExact(bio, RETRY_FLAGS);
      int n = io.readCiphertext(into.reinterpret(length), length);
      if (n == 0) {
        // Nothing more in this call: OpenSSL should wait for the next record (WANT_READ).
        OpenSsl.Lib.BIO_SET_FLAGS.invokeExact(
            bio, OpenSsl.BIO_FLAGS_READ | OpenSsl.BIO_FLAGS_SHOULD_RETRY);
        return -1;
      }
      return n;
    } catch (Throwable e) {
      return -1;
    }
  }

  private static long ctrl(MemorySegment bio, int command, long number, MemorySegment pointer) {
    return command == OpenSsl.BIO_CTRL_FLUSH ? 1 : 0;
  }
}
