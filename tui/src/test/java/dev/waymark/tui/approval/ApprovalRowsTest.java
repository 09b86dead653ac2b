package dev.waymark.tui.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.text.Line;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApprovalRowsTest {
  private static final ToolCallView CALL = new ToolCallView("c1", "run_shell", "{\"command\":\"ls\"}");

  private static String scopeStep(List<Permissions.Scope> offered) {
    ApprovalPrompt prompt = new ApprovalPrompt(CALL, PermissionRule.parse("run_shell(ls:*)"), offered);
    prompt.move(1);
    assertThat(prompt.confirm()).isEmpty(); // to the second step: where to keep the rule
    prompt.move(1);
    prompt.move(1);
    var rows = ApprovalRows.render(new TabState.PendingApproval(1, CALL, "ls", "", false), prompt, true, 100, 20);
    return String.join("\n", rows.lines().stream().map(Line::text).toList()) + "\nchosen: " + prompt.scope();
  }

  @Test
  void anUntrustedProjectsSettingsAreNotOfferedAsAPlaceForAnAllowRule() {
    String untrusted = scopeStep(List.of(Permissions.Scope.SESSION, Permissions.Scope.USER));
    assertThat(untrusted).contains("this session only", "your user settings").doesNotContain("the project's settings")
        .endsWith("chosen: USER");
    assertThat(scopeStep(ApprovalPrompt.SCOPES)).contains("the project's settings");
  }
}
