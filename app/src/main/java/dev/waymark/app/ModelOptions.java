package dev.waymark.app;

import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.GivenNow;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The provider, model and approval flags that {@code waymark} and {@code waymark exec} share. */
final class ModelOptions {
  @Option(names = "--provider", paramLabel = "NAME",
      description = "openai (any OpenAI-compatible server: OpenAI, Ollama, llama.cpp, vLLM, LM Studio), anthropic, or scripted. "
          + "Default: scripted with --script, else anthropic when only ANTHROPIC_API_KEY is set, else openai.")
  String provider;

  @Option(names = "--model", paramLabel = "M", description = "The model name (default: " + Providers.DEFAULT_OPENAI_MODEL
      + " for openai, " + Providers.DEFAULT_ANTHROPIC_MODEL + " for anthropic).")
  String model;

  @Option(names = "--base-url", paramLabel = "URL",
      description = "The server, e.g. http://localhost:11434/v1 for Ollama (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's).")
  String baseUrl;

  @Option(names = "--thinking-budget", paramLabel = "TOKENS",
      description = "Anthropic extended thinking: the tokens Claude may think with before it answers (at least 1024; 0 "
          + "turns it off). Default: the provider's thinkingBudget in settings, else off.")
  Integer thinkingBudget;

  @Option(names = "--script", paramLabel = "FILE", description = "The JSON script the scripted provider replays.")
  Path script;

  @Option(names = "--approval", paramLabel = "MODE",
      description = "plan (reading tools and sandboxed commands on the read-only project run; the model answers with a plan), ask (edits and shell commands need "
          + "approval), auto-edit (edits run, shell asks), auto (edits and sandboxed shell commands run; a command "
          + "outside the sandbox asks), yolo (everything runs; leaving the sandbox still asks). "
          + "Default: WAYMARK_APPROVAL, else the settings' approval, else ask.")
  String approval;

  @Option(names = "--trust-project",
      description = "Trust this project: its .waymark/settings.json may then raise the approval mode and set a provider's "
          + "server and key (recorded in trusted-projects.json beside your settings; asked once in the interface).")
  boolean trustProject;

  /** The settings in effect; with --trust-project, the project is first recorded as trusted. */
  Settings.Loaded settings(Map<String, String> env, Path project) throws Settings.BadSettings {
    if (trustProject) {
      Settings.trust(env, project);
    }
    return Settings.resolve(env, project);
  }

  Providers.Choice choose(Settings settings, Map<String, String> env, CommandLine cli) {
    return Providers.choose(this, settings, env, cli);
  }

  /** Which tab settings this run's flags chose: those win over what a reopened tab saved. */
  GivenNow givenNow() {
    return new GivenNow(model != null, approval != null);
  }

  /** The approval mode: the flag, else WAYMARK_APPROVAL, else the settings, else ask. */
  ApprovalMode approvalMode(Settings settings, Map<String, String> env, CommandLine cli) {
    String mode = approval != null ? approval
        : env.get("WAYMARK_APPROVAL") != null && !env.get("WAYMARK_APPROVAL").isBlank() ? env.get("WAYMARK_APPROVAL")
        : settings.approval() != null ? settings.approval() : "ask";
    try {
      return ApprovalMode.parse(mode);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage());
    }
  }
}
