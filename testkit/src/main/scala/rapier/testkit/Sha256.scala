package rapier.testkit

import java.security.MessageDigest
import java.util.HexFormat

/** The digest the kit checks bodies with, every byte and their order: SHA-256, written in lowercase hexadecimal. */
object Sha256:
  /** A new digest to feed. */
  def digest(): MessageDigest = MessageDigest.getInstance("SHA-256")

  /** What `digest` was fed, in hexadecimal; the digest is reset. */
  def hex(digest: MessageDigest): String = HexFormat.of().formatHex(digest.digest())

  /** The digest of `bytes`, in hexadecimal. */
  def of(bytes: Array[Byte]): String = HexFormat.of().formatHex(digest().digest(bytes))
