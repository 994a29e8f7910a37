import sbt._
import sbt.Keys._

/** What the performance suite's build needs beyond its modules' settings. */
object PerfSuite {

  /** Source folders under perf-suite/ compiled into a side of the suite besides its own sources. */
  def sources(folders: String*): Setting[_] = Compile / unmanagedSourceDirectories ++= folders.map(
    (LocalRootProject / baseDirectory).value / "perf-suite" / _
  )

  /** The hand-written servers every side compiles on its own versions of Netty and Vert.x, and their JSON codecs. */
  val vanillaSources: Setting[_] = sources("vanilla-netty", "vanilla-vertx", "vanilla-json")

  /** Writes `classpath` to `file`, its entries joined by the path separator, as ./perf and the suite's tests read it. */
  def writeClassPath(file: File, classpath: Classpath): File = {
    IO.write(file, classpath.files.mkString(java.io.File.pathSeparator))
    file
  }

  /**
   * Compiles the suite's sides and writes their run-time classpaths where ./perf reads them: the project's modules
   * packaged as jars, as an application ships them (class directories cost each server's start a `file:` URL and a
   * `File` per class found there, about 20 MiB of resident garbage under the suite's heap:
   * docs/perf/2026-11-26-netty-start-rss).
   */
  val perfStage = taskKey[Unit]("Compile the performance suite and write its classpaths for ./perf")

  /** Writes each side's run-time classpath, its modules as jars, where ./perf reads them. */
  def stage(perf: Project, tapir: Project, zio: Project): Def.Initialize[Task[Unit]] = Def.task {
    val out = (LocalRootProject / target).value / "perf"
    IO.createDirectory(out)
    writeClassPath(out / "classpath-rapier.txt", (perf / Runtime / fullClasspathAsJars).value)
    writeClassPath(out / "classpath-tapir.txt", (tapir / Runtime / fullClasspathAsJars).value)
    writeClassPath(out / "classpath-ziohttp.txt", (zio / Runtime / fullClasspathAsJars).value)
    streams.value.log.info(s"perf classpaths written to $out")
  }

  /**
   * The runner's tests: they start the Tapir and zio-http sides' servers too, from the classpaths written here, and
   * each suite runs in a JVM of its own (the three that run servers under load take minutes each, side by side).
   */
  def testSettings(tapir: Project, zio: Project): Seq[Setting[_]] = Seq(
    Test / javaOptions ++= {
      val tapirPath = writeClassPath(target.value / "classpath-tapir.txt", (tapir / Runtime / fullClasspath).value)
      val zioPath = writeClassPath(target.value / "classpath-ziohttp.txt", (zio / Runtime / fullClasspath).value)
      Seq(s"-Drapier.perf.classpath.tapir=$tapirPath", s"-Drapier.perf.classpath.ziohttp=$zioPath")
    },
    Test / testGrouping := {
      val options = (Test / forkOptions).value
      (Test / definedTests).value.map(t => Tests.Group(t.name, Seq(t), Tests.SubProcess(options)))
    }
  )
}
