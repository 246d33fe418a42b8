package dev.sluice.bench.harness;

import dev.sluice.bench.workload.Workloads;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of a child JVM: {@code ChildMain ROLE WORKLOAD IMPL name=value...}. Its stdout
 * carries only protocol lines; anything else printed goes to stderr.
 */
public final class ChildMain {
  private ChildMain() {}

  public static void main(String[] args) {
    PrintStream protocol =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err); // keep libraries' chatter off the protocol channel
    if (args.length < 3) {
      protocol.println(
          Message.of(Message.ERROR, "message", "usage: ChildMain ROLE WORKLOAD IMPL name=value...")
              .format());
      System.exit(2);
    }
    try {
      Role role = Role.parse(args[0]);
      Workload workload = Workloads.get(args[1]);
      Impl impl = role == Role.PEER ? null : Impl.parse(args[2]);
      Params params = Params.fromArgs(List.of(Arrays.copyOfRange(args, 3, args.length)));
      workload.program(role, impl).run(new ChildControl(params, protocol, System.in));
    } catch (Throwable t) {
      t.printStackTrace(System.err);
      String message = t.getClass().getSimpleName() + ": " + t.getMessage();
      protocol.println(Message.of(Message.ERROR, "message", message).format());
      protocol.flush();
      System.exit(1);
    }
    System.exit(0);
  }
}
