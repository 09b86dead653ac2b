package dev.waymark.core.tool;

import dev.waymark.core.model.ToolSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tools the agent offers the model: {@code read_file}, {@code write_file}, {@code edit_file},
 * {@code list_files}, {@code grep} and {@code run_shell}. Their names and parameters are a public
 * contract; every call returns a result (errors included) and never throws.
 *
 * <p>Each tool that changes files records every change in the context's running checkpoint, so
 * that undo restores it; {@code run_shell} finds its changes by comparing the work tree before
 * and after (see {@link dev.waymark.core.checkpoint.WorkTreeSnapshot}).
 */
public final class Tools {
  private final Map<String, Tool> byName = new LinkedHashMap<>();

  private Tools(List<Tool> tools) {
    for (Tool tool : tools) {
      byName.put(tool.name(), tool);
    }
  }

  /** The six standard tools under the given limits. */
  public static Tools standard(ToolSettings settings) {
    return new Tools(List.of(new ReadFileTool(settings), new WriteFileTool(settings), new EditFileTool(settings),
        new ListFilesTool(settings), new GrepTool(settings), new RunShellTool(settings)));
  }

  public static Tools standard() {
    return standard(ToolSettings.DEFAULTS);
  }

  public List<Tool> all() {
    return List.copyOf(byName.values());
  }

  /** What to offer the model, in a stable order. */
  public List<ToolSpec> specs() {
    List<ToolSpec> specs = new ArrayList<>();
    for (Tool tool : byName.values()) {
      specs.add(tool.spec());
    }
    return specs;
  }

  public Optional<Tool> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }
}
