package rapier.testkit

import java.nio.file.Files
import scala.util.Try

/**
 * Headless Chromium, for tests that check a page as a browser shows it (the DOM after its scripts ran, or a
 * screenshot). CI installs the Debian package `chromium`; where none is installed, tests `assume` it and are skipped
 * with [[Missing]] as the reason.
 */
object HeadlessChromium:
  val Missing = "chromium is not installed (apt-get install chromium); .ci/run installs it for CI"

  /** The browser's command, if one is installed. */
  lazy val command: Option[String] =
    List("chromium", "chromium-browser", "google-chrome").find(b =>
      Try(ProcessBuilder(b, "--version").start().waitFor() == 0).getOrElse(false)
    )

  /** Opens `url` with `args` (`--dump-dom`, `--screenshot=…`) in a fresh profile; returns what it printed. */
  def run(url: String, args: String*): String =
    val profile = Files.createTempDirectory("chromium-profile")
    val line = List(
      command.getOrElse(throw IllegalStateException(Missing)),
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      s"--user-data-dir=$profile"
    ) ++ args ++ List(url)
    val p = ProcessBuilder(line*).redirectError(ProcessBuilder.Redirect.DISCARD).start()
    val out = String(p.getInputStream.readAllBytes())
    p.waitFor()
    out
