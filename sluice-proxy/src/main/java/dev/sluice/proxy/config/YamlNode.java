package dev.sluice.proxy.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * A node of the parsed YAML with its place (line and field path), so that every problem found in it
 * can say where it is. Reading a missing or mistyped field records a {@link Problem} and returns
 * nothing, so one pass finds every problem of a file.
 */
final class YamlNode {
  private final Node node;
  private final String path;
  private final Problems problems;
  private final int keyLine;

  YamlNode(Node node, String path, Problems problems) {
    this(node, path, problems, 0);
  }

  /** A field's value: problems about it are reported on the line of the field's name. */
  private YamlNode(Node node, String path, Problems problems, int keyLine) {
    this.node = node;
    this.path = path;
    this.problems = problems;
    this.keyLine = keyLine;
  }

  String path() {
    return path;
  }

  int line() {
    return keyLine > 0 ? keyLine : node.getStartMark().map(m -> m.getLine() + 1).orElse(0);
  }

  void problem(String message) {
    problems.add(new Problem(problems.file(), line(), path, message));
  }

  /** The fields of a mapping in file order, each checked for duplicates; empty if not a mapping. */
  Map<String, YamlNode> fields() {
    if (!(node instanceof MappingNode mapping)) {
      problem("expected a mapping of fields (name: value), found " + describe());
      return Map.of();
    }
    Map<String, YamlNode> fields = new LinkedHashMap<>();
    for (NodeTuple tuple : mapping.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
        new YamlNode(tuple.getKeyNode(), path, problems).problem("a field name must be plain text");
        continue;
      }
      String name = key.getValue();
      int line = key.getStartMark().map(m -> m.getLine() + 1).orElse(0);
      YamlNode value = new YamlNode(tuple.getValueNode(), child(name), problems, line);
      if (fields.putIfAbsent(name, value) != null) {
        value.problem("appears twice");
      }
    }
    return fields;
  }

  /** The fields, after recording every one that is not among {@code known}. */
  Map<String, YamlNode> fields(String... known) {
    Map<String, YamlNode> fields = fields();
    Set<String> allowed = Set.of(known);
    for (Map.Entry<String, YamlNode> field : fields.entrySet()) {
      if (!allowed.contains(field.getKey())) {
        field
            .getValue()
            .problem(
                "unknown field (known here: " + String.join(", ", new TreeSet<>(allowed)) + ")");
      }
    }
    return fields;
  }

  /** The value of field {@code name}, or null; checks nothing ({@link #fields()} does that). */
  YamlNode field(String name) {
    if (node instanceof MappingNode mapping) {
      for (NodeTuple tuple : mapping.getValue()) {
        if (tuple.getKeyNode() instanceof ScalarNode key && key.getValue().equals(name)) {
          int line = key.getStartMark().map(m -> m.getLine() + 1).orElse(0);
          return new YamlNode(tuple.getValueNode(), child(name), problems, line);
        }
      }
    }
    return null;
  }

  /** The items of a sequence; empty if not a sequence. */
  List<YamlNode> items() {
    if (!(node instanceof SequenceNode sequence)) {
      problem("expected a list, found " + describe());
      return List.of();
    }
    List<YamlNode> items = new ArrayList<>();
    List<Node> values = sequence.getValue();
    for (int i = 0; i < values.size(); i++) {
      items.add(new YamlNode(values.get(i), path + "[" + i + "]", problems));
    }
    return items;
  }

  /** The text of a scalar, or empty after recording a problem. */
  Optional<String> text() {
    if (node instanceof ScalarNode scalar) {
      return Optional.of(scalar.getValue());
    }
    problem("expected a single value, found " + describe());
    return Optional.empty();
  }

  boolean isSequence() {
    return node instanceof SequenceNode;
  }

  boolean isScalar() {
    return node instanceof ScalarNode;
  }

  private String child(String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  private String describe() {
    return switch (node) {
      case MappingNode m -> "a mapping";
      case SequenceNode s -> "a list";
      case ScalarNode s -> "'" + s.getValue() + "'";
      default -> node.getNodeType().toString();
    };
  }

  /** Where problems are collected, for one file. */
  static final class Problems {
    private final String file;
    private final List<Problem> list = new ArrayList<>();

    Problems(String file) {
      this.file = file;
    }

    String file() {
      return file;
    }

    void add(Problem problem) {
      list.add(problem);
    }

    /** Every problem, in file order (the reader visits sections in its own order). */
    List<Problem> list() {
      List<Problem> sorted = new ArrayList<>(list);
      sorted.sort(java.util.Comparator.comparingInt(Problem::line));
      return sorted;
    }
  }
}
