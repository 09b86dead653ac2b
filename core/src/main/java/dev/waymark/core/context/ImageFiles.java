package dev.waymark.core.context;

import java.util.Locale;
import java.util.Optional;

/** The image formats providers accept in a prompt, by file name. */
public final class ImageFiles {
  private ImageFiles() {}

  /** The media type of an image file named {@code path}: PNG, JPEG, GIF or WebP; empty for anything else. */
  public static Optional<String> mediaType(String path) {
    String name = path.toLowerCase(Locale.ROOT);
    if (name.endsWith(".png")) {
      return Optional.of("image/png");
    }
    if (name.endsWith(".jpg") || name.endsWith(".jpeg")) {
      return Optional.of("image/jpeg");
    }
    if (name.endsWith(".gif")) {
      return Optional.of("image/gif");
    }
    if (name.endsWith(".webp")) {
      return Optional.of("image/webp");
    }
    return Optional.empty();
  }
}
