package dev.waymark.core.agent;

import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.tool.Tool;
import java.util.List;
import java.util.Optional;

/** The tools a tab offers its model. */
public interface Toolset {
  List<ToolSpec> specs();

  Optional<Tool> find(String name);

  /** What the system prompt says of these tools beyond their specs (the skills the {@code skill} tool loads); empty for none. */
  default String promptSection() {
    return "";
  }

  static Toolset of(List<Tool> tools) {
    return new Toolset() {
      @Override
      public List<ToolSpec> specs() {
        return tools.stream().map(Tool::spec).toList();
      }

      @Override
      public Optional<Tool> find(String name) {
        return tools.stream().filter(t -> t.name().equals(name)).findFirst();
      }
    };
  }
}
