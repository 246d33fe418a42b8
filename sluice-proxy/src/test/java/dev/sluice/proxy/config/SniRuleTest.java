package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Server-name rules: exact names, one-label wildcards, case, order and the default cluster. */
class SniRuleTest {

  @ParameterizedTest(name = "{0} matches {1}: {2}")
  @CsvSource({
    "api.example.com, api.example.com, true",
    "api.example.com, web.example.com, false",
    "api.example.com, example.com, false",
    "api.example.com, x.api.example.com, false",
    "api.example.com, api.example.co, false",
    "api.example.com, api.example.com.evil, false",
    "*.example.com, a.example.com, true",
    "*.example.com, xn--bcher-kva.example.com, true",
    "*.example.com, example.com, false",
    "*.example.com, .example.com, false",
    "*.example.com, a.b.example.com, false",
    "*.example.com, aexample.com, false",
    "*.example.com, a.example.com.evil, false",
    "*.example.com, a.example.org, false",
  })
  void matchesExactNamesAndOneLabelOfWildcard(String match, String name, boolean expected) {
    assertThat(new Route.SniRule(match, "c").matches(name)).isEqualTo(expected);
  }

  @Test
  void theRuleIsLowerCasedSoUpperCaseRulesMatchLowerCaseNames() {
    Route.SniRule rule = new Route.SniRule("API.Example.COM", "api");
    assertThat(rule.match()).isEqualTo("api.example.com");
    assertThat(rule.matches("api.example.com")).isTrue();
    assertThat(new Route.SniRule("*.EXAMPLE.com", "w").matches("x.example.com")).isTrue();
  }

  @Test
  void clusterForIgnoresTheCaseOfTheServerName() {
    Route.BySni route =
        new Route.BySni(
            List.of(
                new Route.SniRule("api.example.com", "api"),
                new Route.SniRule("*.Wild.Example.com", "wild")),
            "fallback");
    assertThat(route.clusterFor("API.EXAMPLE.COM")).isEqualTo("api");
    assertThat(route.clusterFor("Api.Example.Com")).isEqualTo("api");
    assertThat(route.clusterFor("X.WILD.example.COM")).isEqualTo("wild");
  }

  @Test
  void caseFoldingDoesNotDependOnTheDefaultLocale() {
    Locale saved = Locale.getDefault();
    try {
      // In a Turkish locale "I".toLowerCase() is a dotless i, which would never match "i".
      Locale.setDefault(Locale.forLanguageTag("tr-TR"));
      Route.BySni route =
          new Route.BySni(List.of(new Route.SniRule("INFO.EXAMPLE.COM", "info")), null);
      assertThat(route.clusterFor("info.example.com")).isEqualTo("info");
      assertThat(route.clusterFor("INFO.example.com")).isEqualTo("info");
    } finally {
      Locale.setDefault(saved);
    }
  }

  @Test
  void theFirstMatchingRuleWins() {
    Route.SniRule exact = new Route.SniRule("api.example.com", "exact");
    Route.SniRule wildcard = new Route.SniRule("*.example.com", "wildcard");

    Route.BySni exactFirst = new Route.BySni(List.of(exact, wildcard), "fallback");
    assertThat(exactFirst.clusterFor("api.example.com")).isEqualTo("exact");
    assertThat(exactFirst.clusterFor("web.example.com")).isEqualTo("wildcard");

    Route.BySni wildcardFirst = new Route.BySni(List.of(wildcard, exact), "fallback");
    assertThat(wildcardFirst.clusterFor("api.example.com")).isEqualTo("wildcard");

    Route.BySni twoExact =
        new Route.BySni(
            List.of(
                new Route.SniRule("api.example.com", "one"),
                new Route.SniRule("api.example.com", "two")),
            null);
    assertThat(twoExact.clusterFor("api.example.com")).isEqualTo("one");
  }

  @Test
  void aNameMatchingNoRuleGoesToTheDefaultCluster() {
    Route.BySni route =
        new Route.BySni(List.of(new Route.SniRule("*.example.com", "wild")), "fallback");
    assertThat(route.clusterFor("example.com")).isEqualTo("fallback");
    assertThat(route.clusterFor("a.b.example.com")).isEqualTo("fallback");
    assertThat(route.clusterFor("other.test")).isEqualTo("fallback");
  }

  @Test
  void noServerNameGoesToTheDefaultCluster() {
    Route.BySni route =
        new Route.BySni(
            List.of(new Route.SniRule("*.example.com", "wild"), new Route.SniRule("x", "x")),
            "fallback");
    assertThat(route.clusterFor(null)).isEqualTo("fallback");
    assertThat(new Route.BySni(List.of(), "only").clusterFor(null)).isEqualTo("only");
    assertThat(new Route.BySni(List.of(), "only").clusterFor("any.example.com")).isEqualTo("only");
  }

  @Test
  void withoutADefaultAnUnmatchedOrMissingNameHasNoRoute() {
    Route.BySni route = new Route.BySni(List.of(new Route.SniRule("api.example.com", "api")), null);
    assertThat(route.clusterFor("web.example.com")).isNull();
    assertThat(route.clusterFor(null)).isNull();
    assertThat(route.clusterFor("api.example.com")).isEqualTo("api");
  }

  @Test
  void theRulesAreCopiedAndCannotBeChangedAfterwards() {
    List<Route.SniRule> rules = new ArrayList<>();
    rules.add(new Route.SniRule("api.example.com", "api"));
    Route.BySni route = new Route.BySni(rules, "fallback");
    rules.add(0, new Route.SniRule("api.example.com", "sneaky"));
    assertThat(route.clusterFor("api.example.com")).isEqualTo("api");
    assertThatThrownBy(() -> route.rules().add(new Route.SniRule("x.test", "x")))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
