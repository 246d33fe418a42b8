package dev.sluice.bench.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program an arm runs from Debian's packages (haproxy, nginx, wrk): found on the {@code PATH} or
 * in the usual system directories, and installed with {@code apt-get install -y PACKAGE} when it is
 * missing (once with the package lists as they are, then after an {@code apt-get update}).
 *
 * @param command the program's file name
 * @param debianPackage the package that ships it
 */
public record DebianTool(String command, String debianPackage) {
  private static final List<String> SEARCH =
      List.of("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin", "/sbin", "/bin");

  /** Where the program is, or null when it is not installed. */
  public Path find() {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(java.io.File.pathSeparator)));
    }
    dirs.addAll(SEARCH);
    for (String dir : dirs) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, command);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }

  /**
   * The program, installed first when it is missing.
   *
   * @throws IOException when it is missing and cannot be installed, saying what was tried
   */
  public Path findOrInstall() throws IOException, InterruptedException {
    Path found = find();
    if (found != null) {
      return found;
    }
    System.err.println(
        command
            + " not found: installing Debian's package (apt-get install -y "
            + debianPackage
            + ")");
    String first = apt("install", "-y", "-q", debianPackage);
    found = find();
    if (found == null) {
      String update = apt("update", "-q");
      String second = apt("install", "-y", "-q", debianPackage);
      found = find();
      if (found == null) {
        throw new IOException(
            "this arm needs "
                + command
                + " and could not install it with apt-get:\n"
                + first
                + "\n"
                + update
                + "\n"
                + second);
      }
    }
    return found;
  }

  private static String apt(String... args) throws IOException, InterruptedException {
    List<String> line = new ArrayList<>(List.of("apt-get"));
    line.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true);
    builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return "apt-get " + String.join(" ", args) + ": " + e.getMessage();
    }
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
    }
    String tail = output.lines().reduce((a, b) -> b).orElse("");
    return "apt-get " + String.join(" ", args) + ": exit " + process.exitValue() + ": " + tail;
  }

  /** The first line {@code program args...} prints (stdout and stderr merged), e.g. its version. */
  public static String firstLine(Path program, String... args)
      throws IOException, InterruptedException {
    List<String> line = new ArrayList<>(List.of(program.toString()));
    line.addAll(List.of(args));
    Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(30, TimeUnit.SECONDS);
    return output.lines().findFirst().orElse("unknown").strip();
  }
}
