package dev.waymark.app;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.context.Sandboxing;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import java.util.function.Supplier;

/** Wires a project's {@link Workspace}: each of its tabs gets a model, the tools and the settings of this run. */
final class Workspaces {
  private Workspaces() {}

  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings,
      ToolSettings toolSettings) {
    Tools tools = Tools.standard(toolSettings);
    // the system prompt tells the model what fences its commands: the sandbox, once it runs them, says so here
    return new Workspace(store, provider, (tree, memory) -> new TabSession(tree, store.projectDirectory(), models.get(),
        Toolset.of(tools.all()), settings, memory, Sandboxing.NONE));
  }

  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings) {
    return of(store, provider, models, settings, ToolSettings.DEFAULTS);
  }

  /** For the headless commands, whose tabs never ask a model. */
  static Workspace headless(ShadowStore store) {
    return of(store, "none", Providers.unconfigured()::create, new SessionSettings("none", ApprovalMode.ASK, false, null));
  }

  static SessionSettings settings(String model, ApprovalMode approval, boolean interactive) {
    return new SessionSettings(model, approval, interactive, null);
  }
}
