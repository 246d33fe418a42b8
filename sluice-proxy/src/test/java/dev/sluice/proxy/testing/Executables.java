package dev.sluice.proxy.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Finds the real peers tests run (Debian puts some daemons in sbin, off a user's PATH). */
public final class Executables {
  private Executables() {}

  /** {@code name} on the PATH or in an sbin directory, if installed. */
  public static Optional<Path> find(String name) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
    return dirs.stream()
        .filter(d -> !d.isEmpty())
        .map(d -> Path.of(d, name))
        .filter(Files::isExecutable)
        .findFirst();
  }
}
