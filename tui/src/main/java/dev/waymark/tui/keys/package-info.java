/**
 * Where a key goes: {@code KeyRouter} sends each key to the overlay, the input or an action of the
 * key map, and talks up to the interface only through {@code Host}.
 *
 * <p>May use the interface's parts and core's {@code workspace} and {@code tool} values; never
 * {@code WaymarkUi} itself, nor {@code run}, which carries out the commands it is asked for.
 */
package dev.waymark.tui.keys;
