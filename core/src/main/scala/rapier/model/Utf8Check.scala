package rapier.model

/**
 * UTF-8 checked as its bytes come, in any number of parts (RFC 3629 §4: no overlong forms, no surrogates, nothing past
 * U+10FFFF): a part that can't continue valid UTF-8 is told at once, not when the text ends.
 */
private[rapier] final class Utf8Check:
  // Continuation bytes the current character still needs, and the range its next byte must be in
  private var need = 0
  private var low = 0x80
  private var high = 0xbf

  def reset(): Unit =
    need = 0
    low = 0x80
    high = 0xbf

  /** Whether the text so far, `bytes` added, is valid UTF-8 or the start of it. */
  def accepts(bytes: Array[Byte]): Boolean =
    var i = 0
    while i < bytes.length && accepts(bytes(i) & 0xff) do i += 1
    i == bytes.length

  /** Whether the text so far, the byte `b` (0-255) added, is valid UTF-8 or the start of it. */
  def accepts(b: Int): Boolean =
    if need == 0 then
      if b < 0x80 then true
      else if b >= 0xc2 && b <= 0xdf then
        need = 1
        true
      else if b >= 0xe0 && b <= 0xef then
        need = 2
        if b == 0xe0 then low = 0xa0 // overlong
        else if b == 0xed then high = 0x9f // surrogates
        true
      else if b >= 0xf0 && b <= 0xf4 then
        need = 3
        if b == 0xf0 then low = 0x90 // overlong
        else if b == 0xf4 then high = 0x8f // past U+10FFFF
        true
      else false
    else if b < low || b > high then false
    else
      need -= 1
      low = 0x80
      high = 0xbf
      true

  /** Whether the text so far ends with a whole character. */
  def complete: Boolean = need == 0
