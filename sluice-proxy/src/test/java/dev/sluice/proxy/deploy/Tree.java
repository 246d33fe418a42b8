package dev.sluice.proxy.deploy;

import java.util.List;
import java.util.Map;

/**
 * A node of parsed YAML (maps, lists, scalars), walked by key; a missing key or a node of the wrong
 * shape fails with its path, so an assertion on a manifest says where it looked.
 */
record Tree(String path, Object value) {
  /** The child at {@code keys}, one map level each. */
  Tree at(String... keys) {
    Tree node = this;
    for (String key : keys) {
      if (!(node.value instanceof Map<?, ?> map) || !map.containsKey(key)) {
        throw new AssertionError("no " + node.path + "." + key + " in " + node.value);
      }
      node = new Tree(node.path + "." + key, map.get(key));
    }
    return node;
  }

  /** Whether this map has {@code key}. */
  boolean has(String key) {
    return value instanceof Map<?, ?> map && map.containsKey(key);
  }

  /** The elements of this list. */
  List<Tree> list() {
    if (!(value instanceof List<?> items)) {
      throw new AssertionError(path + " is not a list: " + value);
    }
    return java.util.stream.IntStream.range(0, items.size())
        .mapToObj(i -> new Tree(path + "[" + i + "]", items.get(i)))
        .toList();
  }

  /** The element of this list whose {@code key} is {@code name}. */
  Tree find(String key, Object name) {
    return list().stream()
        .filter(t -> t.has(key) && name.equals(t.at(key).value))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + key + " " + name + " in " + path));
  }

  String text() {
    if (!(value instanceof String s)) {
      throw new AssertionError(path + " is not text: " + value);
    }
    return s;
  }

  int integer() {
    if (!(value instanceof Number n)) {
      throw new AssertionError(path + " is not a number: " + value);
    }
    return n.intValue();
  }

  /** This map's entries as text, for labels and selectors. */
  Map<String, String> labels() {
    if (!(value instanceof Map<?, ?> map)) {
      throw new AssertionError(path + " is not a map: " + value);
    }
    Map<String, String> labels = new java.util.LinkedHashMap<>();
    map.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
    return labels;
  }
}
