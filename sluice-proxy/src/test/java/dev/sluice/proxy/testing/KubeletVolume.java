package dev.sluice.proxy.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * A ConfigMap or Secret volume laid out and updated the way the kubelet's atomic writer does it:
 * each key is a symlink {@code key -> ..data/key}, {@code ..data} is a symlink to a directory
 * {@code ..YYYY_MM_DD_HH_MM_SS.NNNNNNNNN} holding the files; an update writes a new such directory,
 * points a new symlink {@code ..data_tmp} at it, renames that over {@code ..data} and deletes the
 * old directory. The key's own path never changes.
 */
public final class KubeletVolume {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("'..'yyyy_MM_dd_HH_mm_ss.");

  private final Path dir;
  private Path current;

  private KubeletVolume(Path dir) {
    this.dir = dir;
  }

  /** Mounts a volume in {@code dir} (created if missing) holding {@code keys}. */
  public static KubeletVolume mount(Path dir, Map<String, byte[]> keys) throws IOException {
    Files.createDirectories(dir);
    KubeletVolume volume = new KubeletVolume(dir);
    volume.update(keys);
    for (String key : keys.keySet()) {
      Files.createSymbolicLink(dir.resolve(key), Path.of("..data", key));
    }
    return volume;
  }

  /** The path a pod reads {@code key} at. */
  public Path path(String key) {
    return dir.resolve(key);
  }

  /** Publishes {@code keys} (the same key names as at mount) as the kubelet does. */
  public void update(Map<String, byte[]> keys) throws IOException {
    Path next = Files.createDirectory(dir.resolve(stampedName()));
    for (Map.Entry<String, byte[]> key : keys.entrySet()) {
      Files.write(next.resolve(key.getKey()), key.getValue());
    }
    Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), next.getFileName());
    Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    Path old = current;
    current = next;
    if (old != null) {
      deleteTree(old);
    }
  }

  private static String stampedName() {
    return ZonedDateTime.now(ZoneOffset.UTC).format(STAMP)
        + ThreadLocalRandom.current().nextInt(100_000_000, 1_000_000_000);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
