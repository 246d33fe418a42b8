package dev.sluice.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every Java example in the README is code that compiles: each {@code java} block must appear, line
 * for line (indentation aside), in {@link ReadmeExamples}, which the build compiles; and the echo
 * example runs.
 */
class ReadmeExamplesTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path EXAMPLES =
      Path.of("src", "test", "java", "dev", "sluice", "readme", "ReadmeExamples.java");

  @Test
  void everyJavaBlockOfTheReadmeIsInTheCompiledExamples() throws IOException {
    List<String> blocks = javaBlocks(Files.readString(README));
    assertThat(blocks).as("java blocks in the README").isNotEmpty();
    String examples = normalise(Files.readString(EXAMPLES));
    for (String block : blocks) {
      assertThat(examples)
          .as("the README block starting %s", block.lines().findFirst().orElse(""))
          .contains(normalise(block));
    }
  }

  @Test
  void theEchoExampleRuns() throws Exception {
    ReadmeExamples.echo();
  }

  private static List<String> javaBlocks(String markdown) {
    List<String> blocks = new ArrayList<>();
    Matcher m = Pattern.compile("(?ms)^\\s*```java\\n(.*?)^\\s*```\\s*$").matcher(markdown);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  /** Lines stripped of indentation, blank lines dropped. */
  private static String normalise(String code) {
    return code.lines()
        .map(String::strip)
        .filter(line -> !line.isEmpty())
        .collect(Collectors.joining("\n"));
  }
}
