package dev.waymark.tui.command;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the application knows about the run, for {@code /status}, {@code /model} and Shift+Tab.
 *
 * @param provider the provider's id, e.g. {@code openai} or one named in settings
 * @param baseUrl the server's address, or empty (the scripted model has none)
 * @param models the models the provider lists in settings ({@code providers[].models}), for {@code /model}
 * @param sandboxed true when shell commands run in a sandbox: only then does Shift+Tab offer a mode
 *     that runs them unasked
 * @param sandbox what {@code /status} says of the sandbox
 * @param prices per model, from settings ({@code prices}); a model without one is shown in tokens only
 * @param commands what {@code /status} says of how shell commands' changes are found (asked each
 *     time: a layer that could not be mounted turns them to comparison); empty: nothing is said
 * @param serverModels asks the server for its models, for {@code /model}; null when there is no server to ask
 */
public record RunInfo(String provider, String baseUrl, List<String> models, boolean sandboxed, String sandbox,
    Map<String, ModelPrice> prices, Supplier<String> commands, ModelLister serverModels) {
  public RunInfo(String provider, String baseUrl, List<String> models, boolean sandboxed, String sandbox,
      Map<String, ModelPrice> prices, Supplier<String> commands) {
    this(provider, baseUrl, models, sandboxed, sandbox, prices, commands, null);
  }

  public RunInfo(String provider, String baseUrl, List<String> models, boolean sandboxed, String sandbox,
      Map<String, ModelPrice> prices) {
    this(provider, baseUrl, models, sandboxed, sandbox, prices, () -> "");
  }

  public RunInfo {
    commands = commands == null ? () -> "" : commands;
    baseUrl = baseUrl == null ? "" : baseUrl;
    models = models == null ? List.of() : List.copyOf(models);
    sandbox = sandbox == null ? "" : sandbox;
    prices = prices == null ? Map.of() : Map.copyOf(prices);
  }

  /** What a run that says only its footer label knows: the provider, from "provider · model". */
  public static RunInfo of(String modelLabel) {
    int dot = modelLabel.indexOf(" · ");
    return new RunInfo(dot < 0 ? modelLabel : modelLabel.substring(0, dot), "", List.of(), false, "", Map.of());
  }

  /** US dollars per million tokens read and written. */
  public record ModelPrice(double inputPerMillion, double outputPerMillion) {
    public ModelPrice {
      if (!(inputPerMillion >= 0) || !(outputPerMillion >= 0)) {
        throw new IllegalArgumentException("a price is a number of dollars per million tokens, 0 or more");
      }
    }

    public double cost(long inputTokens, long outputTokens) {
      return (inputTokens * inputPerMillion + outputTokens * outputPerMillion) / 1_000_000.0;
    }
  }
}
