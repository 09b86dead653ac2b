package dev.waymark.core.session;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A saved session, as written to {@code sessions/<id>.json}: every tab of one project with its
 * checkpoint tree, messages, drafts, pending approvals, tags with their commit ids, and model.
 * The layout is described in core/README.md ("Session format"); {@link #schemaVersion} grows
 * when it changes: 2 added each checkpoint's {@code transcript}; files of version 1 still load.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SessionFile(
    int schemaVersion,
    String id,
    String name,
    String project,
    Instant created,
    Instant updated,
    String activeTab,
    List<Tab> tabs,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> formerNames) {

  /**
   * {@code formerNames}: names the session had before {@code /session save NAME} renamed it; they
   * still open it (after any session that has that name now), so a name once given never stops working.
   */
  public SessionFile {
    tabs = tabs == null ? List.of() : List.copyOf(tabs);
    formerNames = formerNames == null ? List.of() : List.copyOf(formerNames);
  }

  public SessionFile(int schemaVersion, String id, String name, String project, Instant created, Instant updated,
      String activeTab, List<Tab> tabs) {
    this(schemaVersion, id, name, project, created, updated, activeTab, tabs, List.of());
  }

  /**
   * One tab. {@code input} is what sat in its input box; {@code closed} is true for a tab the user
   * closed, kept (with its tags) until the session is deleted and reopened with {@code /tab reopen}.
   * {@code approval} is the tab's approval mode ({@code plan}, {@code ask}, ...), absent in sessions
   * from before modes were per tab (they open in the mode of the run). {@code subagentOf} is the
   * tab whose {@code task} call started this one, absent for a tab the user opened.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Tab(
      String tabId,
      String title,
      String provider,
      String model,
      String input,
      int live,
      int filesAt,
      List<Integer> redo,
      List<Checkpoint> checkpoints,
      Map<String, String> saves,
      Boolean closed,
      String approval,
      String subagentOf) {
    public Tab {
      redo = redo == null ? List.of() : List.copyOf(redo);
      checkpoints = checkpoints == null ? List.of() : List.copyOf(checkpoints);
      saves = saves == null ? Map.of() : Map.copyOf(saves);
      closed = Boolean.TRUE.equals(closed) ? Boolean.TRUE : null; // written only when true
    }

    public Tab(String tabId, String title, String provider, String model, String input, int live, int filesAt,
        List<Integer> redo, List<Checkpoint> checkpoints, Map<String, String> saves) {
      this(tabId, title, provider, model, input, live, filesAt, redo, checkpoints, saves, null, null, null);
    }

    public Tab(String tabId, String title, String provider, String model, String input, int live, int filesAt,
        List<Integer> redo, List<Checkpoint> checkpoints, Map<String, String> saves, Boolean closed) {
      this(tabId, title, provider, model, input, live, filesAt, redo, checkpoints, saves, closed, null, null);
    }

    public boolean isClosed() {
      return Boolean.TRUE.equals(closed);
    }

    public Tab withClosed(boolean isClosed) {
      return new Tab(tabId, title, provider, model, input, live, filesAt, redo, checkpoints, saves, isClosed, approval,
          subagentOf);
    }

    public Tab withSettings(String newProvider, String newModel, String newApproval) {
      return new Tab(tabId, title, newProvider, newModel, input, live, filesAt, redo, checkpoints, saves, closed, newApproval,
          subagentOf);
    }

    public Tab withSubagentOf(Optional<String> parentTab) {
      return new Tab(tabId, title, provider, model, input, live, filesAt, redo, checkpoints, saves, closed, approval,
          parentTab.orElse(null));
    }
  }

  /**
   * One checkpoint: its place in the tree, its files (commit, tag, changes), its turn's messages and
   * the tabs its subagents worked in ({@code children}, absent when none; sessions from before it
   * named them in a line at the end of each {@code task} result, read once when loaded).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Checkpoint(
      int number,
      int parent,
      String status,
      Instant created,
      String commit,
      String tag,
      List<String> saved,
      List<Change> changes,
      List<Message> messages,
      String draft,
      ToolCallRecord pending,
      List<Entry> transcript,
      List<Child> children) {
    public Checkpoint {
      saved = saved == null ? List.of() : List.copyOf(saved);
      changes = changes == null ? List.of() : List.copyOf(changes);
      messages = messages == null ? List.of() : List.copyOf(messages);
      transcript = transcript == null ? null : List.copyOf(transcript); // null: a session from before transcripts
      children = children == null || children.isEmpty() ? null : List.copyOf(children); // null: none, or an old session
    }

    public Checkpoint(int number, int parent, String status, Instant created, String commit, String tag, List<String> saved,
        List<Change> changes, List<Message> messages, String draft, ToolCallRecord pending, List<Entry> transcript) {
      this(number, parent, status, created, commit, tag, saved, changes, messages, draft, pending, transcript, null);
    }

    public Checkpoint(int number, int parent, String status, Instant created, String commit, String tag, List<String> saved,
        List<Change> changes, List<Message> messages, String draft, ToolCallRecord pending) {
      this(number, parent, status, created, commit, tag, saved, changes, messages, draft, pending, null, null);
    }
  }

  /** A tab a checkpoint's subagent worked in: its id, the first and last checkpoint it made there, isolated or not. */
  public record Child(String tab, int first, int last, boolean isolated) {}

  /**
   * One line of what a checkpoint's turn showed (schema 2 on). {@code kind}: started (text is the
   * prompt), reasoning, answer, steering, warning, error (text), tool (call, summary, preview),
   * result (call, text, isError; text left out when it is the tool message's content) or
   * finished (status).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Entry(String kind, String text, ToolCallRecord call, String summary, String preview, Boolean isError,
      String status) {}

  /** A file change: the version before and after ({@code kind} absent, regular, executable or symlink). */
  public record Change(String path, Version before, Version after) {}

  /** {@code mode}: the permission bits in octal ("0600"); absent in sessions from before modes were recorded. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Version(String kind, String blob, String mode) {
    public Version(String kind, String blob) {
      this(kind, blob, null);
    }
  }

  /** A message: role user, assistant or tool. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Message(String role, String text, List<ToolCallRecord> toolCalls, String toolCallId, String toolName,
      Boolean isError, List<ReasoningRecord> reasoning, List<ImageRecord> images) {
    public Message(String role, String text, List<ToolCallRecord> toolCalls, String toolCallId, String toolName,
        Boolean isError) {
      this(role, text, toolCalls, toolCallId, toolName, isError, null, null);
    }

    public Message(String role, String text, List<ToolCallRecord> toolCalls, String toolCallId, String toolName,
        Boolean isError, List<ReasoningRecord> reasoning) {
      this(role, text, toolCalls, toolCallId, toolName, isError, reasoning, null);
    }
  }

  /** An image a user message sent: its media type, its bytes in base64, and the file it came from. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ImageRecord(String mediaType, String data, String name) {}

  /** An assistant's reasoning: text, and for Anthropic thinking its signature or redacted data. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ReasoningRecord(String text, String signature, String redacted) {}

  public record ToolCallRecord(String id, String name, String arguments) {}
}
