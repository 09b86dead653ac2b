package dev.waymark.core.sandbox;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The sandbox the tests need: present, or, in CI ({@code CI=true}), a failure rather than a skipped test. */
public final class Bwrap {
  private Bwrap() {}

  /** {@code policy} on this machine's bwrap; skips the test where there is none, fails it in CI. */
  public static ShellSandbox required(SandboxPolicy policy) {
    ShellSandbox sandbox = ShellSandbox.detect(policy, System.getenv("PATH"));
    if (!sandbox.confines()) {
      String why = "no sandbox here: " + sandbox.unavailable();
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail(why + " (CI must install the package bubblewrap: see .ci/run)");
      }
      assumeTrue(false, why);
    }
    return sandbox;
  }
}
