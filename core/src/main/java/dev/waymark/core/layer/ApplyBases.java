package dev.waymark.core.layer;

import java.util.Optional;

/** What the project held when the command started, as far as the caller knows, for the paths someone changed meanwhile. */
public interface ApplyBases {
  ApplyBases UNKNOWN = path -> Optional.empty();

  /** Its bytes, or empty when not known (the change then clashes unless both sides agree). */
  Optional<byte[]> base(String path);

  /**
   * Whether {@code path}, absent now, is known to have been a file when the command started: then
   * a command's change of it was made to a file someone deleted meanwhile. Overlayfs cannot tell:
   * a file copied up from another name ({@code mv a b}) or rewritten by rename ({@code sed -i})
   * looks the same as one changed in place or made new.
   */
  default boolean existed(String path) {
    return false;
  }
}
