package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.complete;
import static dev.sluice.proxy.http.Heads.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Routing HTTP requests: first match wins, exact and wildcard hosts, path prefixes. */
class HttpRoutesTest {
  private static final HttpRoutes ROUTES =
      new HttpRoutes(
          List.of(
              new HttpRoute("api.example.com", "/v1/", "api-v1"),
              new HttpRoute("API.example.com", null, "api"),
              new HttpRoute("*.example.com", "/static/", "static"),
              new HttpRoute("*.Example.com", null, "wild"),
              new HttpRoute(null, "/health", "health"),
              new HttpRoute("[::1]", null, "loopback6")),
          "web");

  @Test
  void theFirstMatchWins() {
    assertThat(ROUTES.clusterFor("api.example.com", "/v1/users")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("api.example.com", "/v2/users")).isEqualTo("api");
    assertThat(ROUTES.clusterFor("api.example.com", "/static/a.css")).isEqualTo("api");
    assertThat(ROUTES.clusterFor("www.example.com", "/static/a.css")).isEqualTo("static");
    assertThat(ROUTES.clusterFor("www.example.com", "/health")).isEqualTo("wild");
    assertThat(ROUTES.clusterFor("other.org", "/health")).isEqualTo("health");
    assertThat(ROUTES.clusterFor("other.org", "/")).isEqualTo("web");
  }

  @Test
  void hostsCompareIgnoringCasePortAndTrailingDot() {
    assertThat(ROUTES.clusterFor("API.Example.COM:8443", "/v1/")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("api.example.com.", "/v1/")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("[::1]:8080", "/")).isEqualTo("loopback6");
    assertThat(ROUTES.clusterFor("", "/")).isEqualTo("web");
  }

  @Test
  void aWildcardMatchesNamesUnderItsSuffixOnly() {
    assertThat(ROUTES.clusterFor("a.b.example.com", "/")).isEqualTo("wild");
    assertThat(ROUTES.clusterFor("example.com", "/")).isEqualTo("web");
    assertThat(ROUTES.clusterFor("badexample.com", "/")).isEqualTo("web");
    assertThat(ROUTES.clusterFor(".example.com", "/")).isEqualTo("web");
  }

  @Test
  void thePathPrefixIsCaseSensitiveAndIgnoresTheQuery() {
    assertThat(ROUTES.clusterFor("api.example.com", "/V1/x")).isEqualTo("api");
    assertThat(ROUTES.clusterFor("api.example.com", "/v1?/")).isEqualTo("api");
    assertThat(ROUTES.clusterFor("api.example.com", "/v1/?a")).isEqualTo("api-v1");
  }

  @Test
  void aPrefixCannotBeDodgedBySpellingThePathAnotherWay() {
    assertThat(ROUTES.clusterFor("api.example.com", "/x/../v1/users")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("api.example.com", "/v1/../admin")).isEqualTo("api");
    assertThat(ROUTES.clusterFor("api.example.com", "/./v1/a")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("api.example.com", "//v1//a")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("api.example.com", "/%76%31/a")).isEqualTo("api-v1");
    assertThat(ROUTES.clusterFor("api.example.com", "/v1%2Fa")).isEqualTo("api"); // not a slash
    assertThat(ROUTES.clusterFor("api.example.com", "/v1/%2e%2e/admin")).isEqualTo("api");
    assertThat(ROUTES.clusterFor("other.org", "/../../health")).isEqualTo("health");
  }

  @Test
  void theRoutingPathIsWhatAnUpstreamReads() {
    assertThat(RoutingPath.of("/a/b?c=/../d")).isEqualTo("/a/b");
    assertThat(RoutingPath.of("/a/./b/../c/")).isEqualTo("/a/c/");
    assertThat(RoutingPath.of("/a/b/..")).isEqualTo("/a/");
    assertThat(RoutingPath.of("/..")).isEqualTo("/");
    assertThat(RoutingPath.of("/%7euser/%2f%41")).isEqualTo("/~user/%2FA");
    assertThat(RoutingPath.of("/100%")).isEqualTo("/100%");
    assertThat(RoutingPath.of("/a%zz")).isEqualTo("/a%zz");
    assertThat(RoutingPath.of("///")).isEqualTo("/");
    assertThat(RoutingPath.of("/.hidden/..x")).isEqualTo("/.hidden/..x");
    assertThat(new HttpRoute(null, "/v1/./x/..", "c").pathPrefix()).isEqualTo("/v1");
    assertThat(new HttpRoute(null, "/%7Ev1/", "c").pathPrefix()).isEqualTo("/~v1/");
  }

  @Test
  void aParsedRequestIsRoutedByItsAuthorityAndPath() {
    assertThat(
            ROUTES.clusterFor(
                complete(request("GET /v1/x HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))))
        .isEqualTo("api-v1");
    assertThat(
            ROUTES.clusterFor(
                complete(
                    request("GET http://api.example.com/v1/x HTTP/1.1\r\nHost: other\r\n\r\n"))))
        .isEqualTo("api-v1");
  }

  @Test
  void badRulesAreRefused() {
    assertThatThrownBy(() -> new HttpRoute(null, null, "c"))
        .hasMessageContaining("host or a pathPrefix");
    assertThatThrownBy(() -> new HttpRoute("a.com:80", null, "c")).hasMessageContaining("a.com:80");
    assertThatThrownBy(() -> new HttpRoute("*", null, "c")).hasMessageContaining("'*'");
    assertThatThrownBy(() -> new HttpRoute("a.*.com", null, "c")).hasMessageContaining("a.*.com");
    assertThatThrownBy(() -> new HttpRoute("http://a.com", null, "c"))
        .hasMessageContaining("http://a.com");
    assertThatThrownBy(() -> new HttpRoute("a.com", "v1", "c"))
        .hasMessageContaining("begin with /");
    assertThatThrownBy(() -> new HttpRoute("a.com", null, " ")).hasMessageContaining("cluster");
    assertThatThrownBy(() -> new HttpRoutes(List.of(), null)).hasMessageContaining("cluster");
  }
}
