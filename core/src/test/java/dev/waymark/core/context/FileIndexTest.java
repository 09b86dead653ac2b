package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileIndexTest {
  @TempDir Path root;

  @Test
  void theIndexRespectsIgnoreRulesAndFindsTheBestMatchesFirst() throws Exception {
    Files.createDirectories(root.resolve("src/main/java/app"));
    Files.createDirectories(root.resolve("node_modules/x"));
    Files.createDirectories(root.resolve("logs"));
    Files.writeString(root.resolve(".gitignore"), "logs/\n*.tmp\n");
    Files.writeString(root.resolve("src/main/java/app/TabSession.java"), "");
    Files.writeString(root.resolve("src/main/java/app/Tabs.java"), "");
    Files.writeString(root.resolve("src/main/java/app/SessionStore.java"), "");
    Files.writeString(root.resolve("node_modules/x/TabSession.js"), "");
    Files.writeString(root.resolve("logs/TabSession.log"), "");
    Files.writeString(root.resolve("TabSession.tmp"), "");
    Files.writeString(root.resolve("README.md"), "");
    FileIndex index = new FileIndex(root);
    assertThat(index.search("tab", 10)).isEmpty();

    index.refreshNow();

    assertThat(index.ready()).isTrue();
    assertThat(index.search("tabsess", 10)).containsExactly("src/main/java/app/TabSession.java");
    assertThat(index.search("tabs", 10)).first().isEqualTo("src/main/java/app/Tabs.java");
    assertThat(index.search("sess", 10)).containsExactlyInAnyOrder("src/main/java/app/TabSession.java",
        "src/main/java/app/SessionStore.java");
    assertThat(index.search("SessionStore", 1)).containsExactly("src/main/java/app/SessionStore.java");
    assertThat(index.search("src/main/j", 1)).containsExactly("src/main/java/");
    assertThat(index.search("", 10)).containsExactly(".gitignore", "README.md", "src/");
    assertThat(index.search("zzz", 10)).isEmpty();
  }

  @Test
  void aBackgroundRefreshSeesNewFiles() throws Exception {
    FileIndex index = new FileIndex(root);
    index.refreshNow();
    Files.writeString(root.resolve("later.txt"), "");
    index.refresh();
    Eventually.until("the refresh found later.txt", () -> !index.search("later", 1).isEmpty());
    assertThat(index.search("later", 1)).containsExactly("later.txt");
  }
}
