package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.ChatMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PromptImagesTest {
  private static final byte[] PNG = Base64.getDecoder().decode(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=");
  private static final byte[] GIF = "GIF89a....".getBytes(StandardCharsets.ISO_8859_1);

  @TempDir Path temp;

  @Test
  void imagesNamedAnyWayAUserPastesThemAreFoundOnceAndTheirTypeIsReadFromTheirBytes() throws Exception {
    Path root = Files.createDirectories(temp.resolve("project"));
    Files.write(root.resolve("a.png"), PNG);
    Path home = Files.createDirectories(temp.resolve("home"));
    Files.write(home.resolve("shot.gif"), GIF);
    Path spaced = Files.createDirectories(temp.resolve("my shots"));
    Files.write(spaced.resolve("b c.jpg"), PNG); // named .jpg, a PNG inside
    String prompt = "see @a.png, a.png and ~/shot.gif and " + spaced.toString().replace(" ", "\\ ") + "/b\\ c.jpg and '"
        + spaced.resolve("b c.jpg") + "' but not @../x.png or missing.webp";

    PromptImages.Found found = PromptImages.in(root, prompt, home.toString());

    assertThat(found.images()).extracting(ChatMessage.Image::name, ChatMessage.Image::mediaType).containsExactly(
        Tuple.tuple("a.png", "image/png"), Tuple.tuple("shot.gif", "image/gif"),
        Tuple.tuple("b c.jpg", "image/png"));
    assertThat(found.images().get(0).base64()).isEqualTo(Base64.getEncoder().encodeToString(PNG));
    assertThat(found.leftOut()).isEmpty();
  }

  @Test
  void aFileThatIsNoImageOrTooBigIsLeftOutSayingWhyAndTextOnlyModelsAreKnown() throws Exception {
    Files.writeString(temp.resolve("fake.png"), "text");
    Path big = temp.resolve("big.png");
    try (var out = Files.newOutputStream(big)) {
      out.write(PNG);
      out.write(new byte[(int) PromptImages.MAX_BYTES]);
    }

    PromptImages.Found found = PromptImages.in(temp, "fake.png big.png", null);

    assertThat(found.images()).isEmpty();
    assertThat(found.leftOut()).containsExactly("fake.png is not a PNG, JPEG, GIF or WebP image",
        "big.png is 5.0 MB, over the 5 MB an image may be");
    assertThat(PromptImages.accepted("gpt-4o")).isTrue();
    assertThat(PromptImages.accepted("claude-sonnet-4-5")).isTrue();
    assertThat(PromptImages.accepted("deepseek/deepseek-chat")).isFalse();
    assertThat(PromptImages.accepted("qwen2.5-coder:7b")).isFalse();
  }
}
