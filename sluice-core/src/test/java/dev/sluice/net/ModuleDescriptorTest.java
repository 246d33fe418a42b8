package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports the public API and nothing of the loops' machinery. */
class ModuleDescriptorTest {

  @Test
  void onlyThePublicApiIsExported() throws Exception {
    Path classes =
        Path.of(EventLoop.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ModuleReference module =
        ModuleFinder.of(classes)
            .find("dev.sluice.core")
            .orElseThrow(() -> new AssertionError("no module dev.sluice.core in " + classes));
    ModuleDescriptor descriptor = module.descriptor();
    Set<String> exported =
        descriptor.exports().stream()
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toSet());
    assertThat(exported)
        .containsExactlyInAnyOrder("dev.sluice.memory", "dev.sluice.net", "dev.sluice.tls");
    assertThat(descriptor.packages()).contains("dev.sluice.internal");
    assertThat(descriptor.requires().stream().map(ModuleDescriptor.Requires::name))
        .as("the core depends on the JDK's base module alone")
        .containsExactly("java.base");
  }
}
