package dev.waymark.app;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.context.Sandboxing;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.skill.SkillCatalog;
import dev.waymark.core.subagent.AgentCatalog;
import dev.waymark.core.subagent.ChildSetup;
import dev.waymark.core.subagent.TaskTool;
import dev.waymark.core.subagent.WorkspaceSubagents;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.SkillTool;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.tool.WebAccess;
import dev.waymark.core.tool.WebFetchTool;
import dev.waymark.core.tool.WebSearch;
import dev.waymark.core.tool.WebSearchTool;
import dev.waymark.core.workspace.Workspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** Wires a project's {@link Workspace}: each of its tabs gets a model, the tools and the settings of this run. */
final class Workspaces {
  private Workspaces() {}

  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings,
      ToolSettings toolSettings) {
    return of(store, provider, models, settings, toolSettings, Permissions.none(), McpServers.none(), Sandboxing.NONE);
  }

  /** What the model is told of the sandbox {@code sandbox}. */
  static Sandboxing sandboxing(ShellSandbox sandbox) {
    return new Sandboxing(sandbox.describe(), sandbox.describeNetwork());
  }

  /**
   * With the tools of {@code mcp}'s servers besides the standard ones, in every tab, whose system
   * prompt says what {@code sandboxing} fences.
   */
  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings,
      ToolSettings toolSettings, Permissions permissions, McpServers mcp, Sandboxing sandboxing) {
    return of(store, provider, models, settings, toolSettings, permissions, mcp, sandboxing, SkillCatalog.NONE, null,
        Optional.empty());
  }

  /**
   * And the {@code skill} tool over {@code skills}, which the system prompt lists, when there are any, and
   * {@code web_fetch} reaching what {@code web} allows (null: no web tool), and {@code web_search} asking
   * {@code search}, when there is one.
   */
  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings,
      ToolSettings toolSettings, Permissions permissions, McpServers mcp, Sandboxing sandboxing, SkillCatalog skills,
      WebAccess web, Optional<WebSearch> search) {
    return of(store, provider, models, settings, toolSettings, permissions, mcp, sandboxing, skills, web, search,
        AgentCatalog.BUILT_IN, WorkspaceSubagents.DEFAULT_MAX_PARALLEL);
  }

  /**
   * And the task tool over the agents of {@code agents}, which the parent's system prompt lists, running at
   * most {@code maxParallel} subagents at once.
   */
  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings,
      ToolSettings toolSettings, Permissions permissions, McpServers mcp, Sandboxing sandboxing, SkillCatalog skills,
      WebAccess web, Optional<WebSearch> search, AgentCatalog agents, int maxParallel) {
    List<Tool> standard = new ArrayList<>(Tools.standard(toolSettings).all());
    if (web != null) {
      standard.add(new WebFetchTool(web, toolSettings));
    }
    search.ifPresent(backend -> standard.add(new WebSearchTool(backend, toolSettings)));
    if (!skills.isEmpty()) {
      standard.add(new SkillTool(skills, toolSettings));
    }
    // a subagent's tab gets the parent's tools its agent allows (never task), mode and rules
    AtomicReference<Toolset> all = new AtomicReference<>();
    WorkspaceSubagents subagents = new WorkspaceSubagents((tree, parent, agent) -> new TabSession(tree,
        store.projectDirectory(), models.get(), ChildSetup.tools(all.get(), agent), ChildSetup.settings(parent.settings(),
        agent), TabMemory.EMPTY, parent.permissions(), sandboxing), maxParallel,
        agents::agents);
    standard.add(new TaskTool(subagents));
    all.set(withSkills(mcp.isEmpty() ? Toolset.of(standard) : withMcp(standard, mcp), skills, ""));
    Toolset toolset = withSkills(all.get(), SkillCatalog.NONE, agents.promptSection()); // a subagent's prompt lists no agents
    Workspace workspace = new Workspace(store, provider, (tree, memory) -> subagents.watched(new TabSession(tree,
        store.projectDirectory(), models.get(), toolset, settings, memory, permissions, sandboxing)));
    subagents.attach(workspace);
    workspace.mcp(mcp);
    workspace.isolateWith(toolSettings.sandbox().bwrap()); // isolated tabs' commands run in this sandbox, in their views
    return workspace;
  }

  /** {@code tools}, whose system prompt section lists {@code skills}, then says {@code more}. */
  private static Toolset withSkills(Toolset tools, SkillCatalog skills, String more) {
    if (skills.isEmpty() && more.isEmpty()) {
      return tools;
    }
    return new Toolset() {
      @Override
      public List<ToolSpec> specs() {
        return tools.specs();
      }

      @Override
      public Optional<Tool> find(String name) {
        return tools.find(name);
      }

      @Override
      public String promptSection() {
        return tools.promptSection() + (skills.isEmpty() ? "" : skills.promptSection()) + more;
      }
    };
  }

  /**
   * The standard tools, then the MCP servers' as they are now: a server that starts late, fails or
   * is down after a crash changes what the next model request offers.
   */
  private static Toolset withMcp(List<Tool> standard, McpServers mcp) {
    return new Toolset() {
      private List<Tool> all() {
        List<Tool> all = new ArrayList<>(standard);
        for (Tool tool : mcp.tools()) {
          if (all.stream().noneMatch(t -> t.name().equals(tool.name()))) {
            all.add(tool);
          }
        }
        return all;
      }

      @Override
      public List<ToolSpec> specs() {
        return all().stream().map(Tool::spec).toList();
      }

      @Override
      public Optional<Tool> find(String name) {
        return all().stream().filter(t -> t.name().equals(name)).findFirst();
      }
    };
  }

  static Workspace of(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings) {
    return of(store, provider, models, settings, ToolSettings.DEFAULTS);
  }

  /**
   * Starts the configured MCP servers in the background (none configured: nothing of the MCP
   * library is loaded); {@code environment} gives the variables their env and headers name.
   */
  static McpServers mcp(Settings settings, Path project, Map<String, String> environment) {
    return McpServers.start(settings.mcpConfigs(), new McpServers.Options(project, environment,
        Set.copyOf(settings.allowedTools()), settings.toolSettings()));
  }

  /** For the headless commands, whose tabs never ask a model. */
  static Workspace headless(ShadowStore store) {
    Workspace workspace = of(store, "none", Providers.unconfigured()::create,
        new SessionSettings("none", ApprovalMode.ASK, false, null));
    workspace.keepTabSettings(); // "none" and ask are this command's, never the tab's
    return workspace;
  }

  static SessionSettings settings(String model, ApprovalMode approval, boolean interactive) {
    return new SessionSettings(model, approval, interactive, null);
  }
}
