package dev.sluice.proxy.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The entries a path is made of once every symlink on the way is followed: each link met (in the
 * file's name or in a directory above it) and the final file. A change to any of them changes what
 * the path reads, so the watcher watches the directory of each: a Kubernetes volume swaps the
 * {@code ..data} link beside {@code sluice.yaml -> ..data/sluice.yaml} and never touches the file's
 * own name.
 *
 * @param entries absolute, each in a real directory: the links in the order met, then the target
 *     (which may not exist, for a path caught in the middle of a swap)
 */
record LinkChain(List<Path> entries) {
  /** More links than this on one path is a loop (the kernel's own limit is 40). */
  private static final int MAX_LINKS = 40;

  LinkChain {
    entries = List.copyOf(entries);
  }

  /** Resolves {@code file} component by component, as the kernel does. */
  static LinkChain of(Path file) {
    Path absolute = file.toAbsolutePath();
    List<Path> entries = new ArrayList<>();
    Deque<Path> todo = new ArrayDeque<>();
    absolute.forEach(todo::add);
    Path at = absolute.getRoot();
    int links = 0;
    while (!todo.isEmpty()) {
      String name = todo.removeFirst().toString();
      if (name.equals(".")) {
        continue;
      }
      if (name.equals("..")) {
        at = at.getParent() == null ? at : at.getParent(); // at is real: its parent is too
        continue;
      }
      Path next = at.resolve(name);
      Path target = links < MAX_LINKS ? linkTarget(next) : null;
      if (target == null) {
        at = next; // a directory, the file itself, or missing: resolution of what follows is moot
        continue;
      }
      entries.add(next);
      links++;
      List<Path> rest = new ArrayList<>();
      target.forEach(rest::add);
      for (int i = rest.size() - 1; i >= 0; i--) {
        todo.addFirst(rest.get(i));
      }
      if (target.isAbsolute()) {
        at = target.getRoot();
      }
    }
    entries.add(at);
    return new LinkChain(entries);
  }

  private static Path linkTarget(Path path) {
    if (!Files.isSymbolicLink(path)) {
      return null;
    }
    try {
      return Files.readSymbolicLink(path);
    } catch (IOException gone) {
      return null; // replaced between the two calls: the next change event resolves it again
    }
  }

  /** The file the path reads now. */
  Path target() {
    return entries.getLast();
  }

  /** The directories to watch: those holding an entry (that exist). */
  Set<Path> directories() {
    Set<Path> dirs = new HashSet<>();
    for (Path entry : entries) {
      Path dir = entry.getParent();
      if (dir != null && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        dirs.add(dir);
      }
    }
    return dirs;
  }

  /** Whether {@code name} in {@code dir} is one of the entries. */
  boolean contains(Path dir, Path name) {
    return entries.contains(dir.resolve(name));
  }
}
