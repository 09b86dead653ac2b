package dev.waymark.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.permission.Permissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.Map;

/**
 * Writes allow and deny rules into the user's or the project's settings file, keeping everything
 * else in it, atomically. A file that does not parse is reported and never overwritten; an allow
 * rule is not written to an untrusted project's file, where it would be ignored.
 */
final class RuleFiles implements Permissions.RuleFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, String> env;
  private final Path project;
  private final boolean trusted;

  RuleFiles(Map<String, String> env, Path project, boolean trusted) {
    this.env = env;
    this.project = project;
    this.trusted = trusted;
  }

  @Override
  public void add(Permissions.Scope scope, boolean deny, String rule) throws IOException {
    if (scope == Permissions.Scope.PROJECT && !deny && !trusted) {
      throw new IOException("this project is not trusted, so allow rules in its settings are ignored; keep the rule in "
          + "your user settings, or trust the project (--trust-project)");
    }
    edit(scope, deny, rule, true);
  }

  @Override
  public boolean keepsAllowRules(Permissions.Scope scope) {
    return scope != Permissions.Scope.PROJECT || trusted;
  }

  @Override
  public void remove(Permissions.Scope scope, boolean deny, String rule) throws IOException {
    edit(scope, deny, rule, false);
  }

  private void edit(Permissions.Scope scope, boolean deny, String rule, boolean add) throws IOException {
    Path file = switch (scope) {
      case USER -> Settings.userFile(env);
      case PROJECT -> Settings.projectFile(project);
      case SESSION -> throw new IllegalArgumentException("a session rule lives in no file");
    };
    try {
      Settings.read(file); // a broken file is reported, never overwritten
    } catch (Settings.BadSettings e) {
      throw new IOException(e.getMessage(), e);
    }
    ObjectNode root;
    if (Files.exists(file)) {
      JsonNode read = JSON.readTree(Files.readString(file));
      if (!(read instanceof ObjectNode object)) {
        throw new IOException(file + " does not hold a JSON object");
      }
      root = object;
    } else {
      root = JSON.createObjectNode();
    }
    String field = deny ? "deny" : "allow";
    ArrayNode rules = root.has(field) ? (ArrayNode) root.get(field) : root.putArray(field);
    boolean found = false;
    for (Iterator<JsonNode> it = rules.elements(); it.hasNext(); ) {
      if (it.next().asText().equals(rule)) {
        found = true;
        if (!add) {
          it.remove();
        }
      }
    }
    if (add == found) {
      return; // there already, or already gone
    }
    if (add) {
      rules.add(rule);
    }
    Files.createDirectories(file.getParent());
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
