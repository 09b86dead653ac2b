package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.layer.View;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MentionsTest {
  @TempDir Path temp;
  Path root;

  @BeforeEach
  void project() throws Exception {
    root = Files.createDirectories(temp.resolve("project"));
    Files.createDirectories(root.resolve("src/util"));
    Files.writeString(root.resolve("src/Main.java"), "class Main {}\n");
    Files.writeString(root.resolve("src/util/A.java"), "class A {}\n");
    Files.writeString(root.resolve("README.md"), "hello\n");
  }

  @Test
  void inAnIsolatedTabAMentionReadsItsView() throws Exception {
    var view = View.open(temp.resolve("views"), root.toRealPath(), "t1");
    view.write("src/Main.java", "class Main { /* the tab's */ }\n".getBytes(), 0644);
    view.write("src/New.java", "class New {}\n".getBytes(), 0644);
    view.delete("README.md");

    String sent = Mentions.expand(root.toRealPath(), view, "Explain @src/Main.java and @src/ and @README.md");
    assertThat(sent).contains("the tab's").contains("--- @src/ (directory, 3 entries) ---\nMain.java\nNew.java\nutil/\n")
        .doesNotContain("hello");
    assertThat(Mentions.paths(root.toRealPath(), view, "@README.md @src/New.java")).containsExactly("src/New.java");
  }

  @Test
  void aMentionedFileGoesAfterThePromptAndTheTypedPromptStaysApart() {
    String prompt = "Explain @src/Main.java, then @README.md.";

    String sent = Mentions.expand(root, prompt);

    assertThat(sent).startsWith(prompt + Mentions.ATTACHED).contains("--- @src/Main.java ---\nclass Main {}\n--- end of @src/Main.java ---",
        "--- @README.md ---\nhello\n");
    assertThat(Mentions.typed(sent)).isEqualTo(prompt);
    assertThat(Mentions.paths(root, "again @src/Main.java and @src/Main.java")).containsExactly("src/Main.java");
  }

  @Test
  void aDirectoryIsListedWithItsSubdirectoriesMarked() {
    assertThat(Mentions.expand(root, "what is in @src/")).contains("--- @src/ (directory, 2 entries) ---\nMain.java\nutil/\n");
    assertThat(Mentions.paths(root, "look at @src")).containsExactly("src/");
  }

  @Test
  void whatNamesNothingInTheProjectIsLeftAsItIs() throws Exception {
    Path outside = Files.writeString(temp.resolve("secret.txt"), "secret\n");
    Files.createSymbolicLink(root.resolve("link.txt"), outside);
    String prompt = "mail me@example.com about @Override, @../secret.txt, @" + outside + ", @link.txt and @nothing.txt";

    assertThat(Mentions.expand(root, prompt)).isEqualTo(prompt);
  }

  @Test
  void aLongFileIsCutWithANoteAndABinaryOneIsNamedNotAttached() throws Exception {
    Files.writeString(root.resolve("big.txt"), "x".repeat(Mentions.MAX_FILE_CHARS + 500));
    Files.write(root.resolve("blob.bin"), new byte[] {0, 1, 2, (byte) 0xff, 0});

    String sent = Mentions.expand(root, "@big.txt @blob.bin");

    assertThat(sent).contains("[cut: only the first " + Mentions.MAX_FILE_CHARS + " characters of "
        + (Mentions.MAX_FILE_CHARS + 500) + " bytes are attached; read_file reads the rest]");
    assertThat(sent).contains("--- @blob.bin: a binary file (5 bytes), not attached ---");
    assertThat(sent.length()).isLessThan(Mentions.MAX_FILE_CHARS + 1000);
  }
}
