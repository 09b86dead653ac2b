package dev.waymark.app;

import dev.waymark.core.bisect.Bisection;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.sandbox.ShellSandbox;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Where a bisect runs, for the headless command and the interface alike: this run's sandbox, store and environment. */
final class BisectSetups {
  /** How long one run may take in the interface, which has no --timeout. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  private BisectSetups() {}

  static Bisection.Setup of(ShadowStore store, Settings settings, ShellSandbox sandbox, Map<String, String> env,
      Duration timeout) {
    Map<String, String> environment = new HashMap<>(env);
    environment.keySet().removeAll(settings.toolSettings().withheldVariables()); // as for run_shell: no provider keys
    return new Bisection.Setup(store.projectDirectory(), store.scratchDirectory("bisect"), sandbox, store::readBlob,
        environment, timeout);
  }
}
