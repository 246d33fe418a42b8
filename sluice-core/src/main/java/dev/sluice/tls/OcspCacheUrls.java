package dev.sluice.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLDecoder;
import java.net.URLStreamHandler;
import java.net.spi.URLStreamHandlerProvider;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code sluice-ocsp:} URLs the JDK's stapling queries (see {@link OcspStapling}): an OCSP
 * request, by GET or POST as the JDK chooses, answered from Sluice's cache in memory, or with a 404
 * when no fresh response is held. Registered as a service so that {@link URL} finds it; not for
 * applications.
 */
public final class OcspCacheUrls extends URLStreamHandlerProvider {
  /** Made by the service loader. */
  public OcspCacheUrls() {}

  @Override
  public URLStreamHandler createURLStreamHandler(String protocol) {
    if (!OcspStapling.SCHEME.equals(protocol)) {
      return null;
    }
    return new URLStreamHandler() {
      @Override
      protected URLConnection openConnection(URL url) {
        return new CacheConnection(url);
      }
    };
  }

  /** One request to the cache. */
  private static final class CacheConnection extends HttpURLConnection {
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private byte[] answer;

    CacheConnection(URL url) {
      super(url);
    }

    @Override
    public void connect() {
      connected = true;
    }

    @Override
    public OutputStream getOutputStream() {
      return body;
    }

    @Override
    public int getResponseCode() {
      return answer() == null ? HTTP_NOT_FOUND : HTTP_OK;
    }

    @Override
    public String getResponseMessage() {
      return answer() == null ? "no fresh OCSP response held" : "OK";
    }

    @Override
    public int getContentLength() {
      return answer() == null ? -1 : answer.length;
    }

    @Override
    public InputStream getInputStream() throws IOException {
      if (answer() == null) {
        throw new IOException("no fresh OCSP response held for this certificate");
      }
      return new ByteArrayInputStream(answer);
    }

    private byte[] answer() {
      if (answer == null) {
        try {
          answer = OcspStapling.cached(OcspMessages.requestedCert(request()));
        } catch (IllegalArgumentException e) {
          answer = null; // not an OCSP request: nothing to answer
        }
      }
      return answer;
    }

    /** The request: the POST body, or the GET path's last segment (base64, URL-encoded). */
    private byte[] request() {
      if (body.size() > 0) {
        return body.toByteArray();
      }
      String path =
          url.getPath() == null || url.getPath().isEmpty() ? url.getFile() : url.getPath();
      String last = path.substring(path.lastIndexOf('/') + 1);
      return Base64.getDecoder().decode(URLDecoder.decode(last, StandardCharsets.UTF_8));
    }

    @Override
    public void disconnect() {}

    @Override
    public boolean usingProxy() {
      return false;
    }
  }
}
