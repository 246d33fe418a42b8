package dev.sluice.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads the PEM blocks of a file ({@code -----BEGIN TYPE-----}, base64, {@code -----END
 * TYPE-----}).
 */
final class Pem {

  /** One block: its type, its RFC 1421 headers (legacy encryption), and its DER bytes. */
  record Block(String type, List<String> headers, byte[] der) {}

  private Pem() {}

  /** Every block of {@code file}, in order; text outside blocks is ignored. */
  static List<Block> read(Path file) throws KeyMaterialException {
    String text = new String(readBytes(file), StandardCharsets.US_ASCII);
    List<Block> blocks = new ArrayList<>();
    int at = 0;
    while (true) {
      int begin = text.indexOf("-----BEGIN ", at);
      if (begin < 0) {
        return blocks;
      }
      int typeEnd = text.indexOf("-----", begin + 11);
      if (typeEnd < 0) {
        throw new KeyMaterialException(file, "malformed PEM: unterminated BEGIN line", null);
      }
      String type = text.substring(begin + 11, typeEnd).strip();
      String endMarker = "-----END " + type + "-----";
      int end = text.indexOf(endMarker, typeEnd);
      if (end < 0) {
        throw new KeyMaterialException(file, "malformed PEM: no " + endMarker + " line", null);
      }
      List<String> headers = new ArrayList<>();
      StringBuilder base64 = new StringBuilder();
      for (String line : text.substring(typeEnd + 5, end).split("\r?\n")) {
        String trimmed = line.strip();
        if (trimmed.contains(":")) {
          headers.add(trimmed);
        } else {
          base64.append(trimmed);
        }
      }
      byte[] der;
      try {
        der = Base64.getDecoder().decode(base64.toString());
      } catch (IllegalArgumentException e) {
        throw new KeyMaterialException(
            file, "malformed PEM: the " + type + " block is not valid base64", e);
      }
      blocks.add(new Block(type, List.copyOf(headers), der));
      at = end + endMarker.length();
    }
  }

  static byte[] readBytes(Path file) throws KeyMaterialException {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new KeyMaterialException(file, "cannot read file: it does not exist", e);
    } catch (AccessDeniedException e) {
      throw new KeyMaterialException(file, "cannot read file: permission denied", e);
    } catch (IOException e) {
      throw new KeyMaterialException(file, "cannot read file: " + e, e);
    }
  }
}
