package dev.sluice.bench.harness;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A child's end of the protocol: it reports with {@link #send} on its stdout and waits for the
 * harness's commands with {@link #await} on its stdin. If stdin closes before the harness said
 * EXIT, the harness is gone and the child halts at once, so no child outlives its harness.
 */
public final class ChildControl {
  private static final String END_OF_INPUT = "\u0000eof";

  private final Params params;
  private final PrintStream protocol;
  private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();

  ChildControl(Params params, PrintStream protocol, InputStream stdin) {
    this.params = params;
    this.protocol = protocol;
    Thread.ofPlatform().name("harness-commands").daemon(true).start(() -> pump(stdin));
  }

  /** The run's options. */
  public Params params() {
    return params;
  }

  /** Sends one protocol line to the harness; any thread. */
  public void send(Message message) {
    synchronized (protocol) {
      protocol.println(message.format());
      protocol.flush();
    }
  }

  /** Sends a message from a word and alternating keys and values; any thread. */
  public void send(String word, Object... keysAndValues) {
    send(Message.of(word, keysAndValues));
  }

  /** Sends a message with {@code fields}, in their iteration order; any thread. */
  public void send(String word, Map<String, ?> fields) {
    Map<String, String> text = new LinkedHashMap<>();
    fields.forEach((k, v) -> text.put(k, String.valueOf(v)));
    send(new Message(word, text));
  }

  /**
   * Waits for the harness's next command, which must be {@code word}.
   *
   * @throws IllegalStateException if the harness sent something else
   */
  public Message await(String word) throws InterruptedException {
    String line = commands.take();
    if (line.equals(END_OF_INPUT)) {
      // The harness went away without saying EXIT: do not linger.
      Runtime.getRuntime().halt(3);
    }
    Message message = Message.parse(line);
    if (!message.word().equals(word)) {
      throw new IllegalStateException("expected " + word + " from the harness, got " + line);
    }
    return message;
  }

  private void pump(InputStream stdin) {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        commands.add(line);
        if (line.equals("EXIT")) {
          return;
        }
      }
    } catch (java.io.IOException ignored) {
      // Treated as end of input below.
    }
    commands.add(END_OF_INPUT);
  }
}
