package rapier.examples

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * Every Scala snippet of the README and the guide (the pages in `docs`) is code this module compiles, word for word: each
 * ```scala block follows a marker naming where it comes from, `<!-- snippet: Styles.scala#styles -->` (the lines
 * between `// start:styles` and `// end:styles` in that file, under the examples' main or test sources, their common
 * indentation removed; several names joined by a blank line; a file with no region: the file past its package line).
 * A renamed method breaks the build, not the reader.
 */
class SnippetsTest extends munit.FunSuite:
  private val root = Path.of("..")
  private val sources = List("src/main/scala/rapier/examples", "src/test/scala/rapier/examples").map(Path.of(_))
  private val Marker = """<!-- snippet: (.+) -->""".r

  private def source(file: String): String =
    sources.map(_.resolve(file)).find(Files.isRegularFile(_)) match
      case Some(path) => Files.readString(path)
      case None => fail(s"no example file $file")

  /** What a marker's name stands for: a region of a file, or the file past its package line. */
  private def snippet(name: String): String = name.split('#') match
    case Array(file) =>
      source(file).linesIterator.dropWhile(l => l.startsWith("package ") || l.isEmpty).mkString("", "\n", "\n")
    case Array(file, region) =>
      val lines = source(file).linesIterator.toList
      val from = lines.indexWhere(_.trim == s"// start:$region")
      val to = lines.indexWhere(_.trim == s"// end:$region")
      assert(from >= 0 && to > from, s"no region $region in $file")
      val body = lines.slice(from + 1, to)
      val indent = body.filter(_.trim.nonEmpty).map(_.takeWhile(_ == ' ').length).min
      body.map(_.drop(indent)).mkString("", "\n", "\n")
    case _ => fail(s"not a snippet name: $name")

  /** The pages: the README and the guide's. */
  private val pages: List[Path] =
    val docs = Files.list(root.resolve("docs"))
    try root.resolve("README.md") :: docs.iterator.asScala.filter(_.toString.endsWith(".md")).toList.sorted
    finally docs.close()

  /** Each ```scala block of a page: the marker line before it (if any) and its text. */
  private def blocks(page: Path): List[(Option[String], String, Int)] =
    val lines = Files.readAllLines(page).asScala.toVector
    lines.indices.filter(i => lines(i) == "```scala").toList.map { i =>
      val end = lines.indexWhere(_ == "```", i + 1)
      assert(end > i, s"$page: the block at line ${i + 1} never ends")
      val marker = lines.lift(i - 1).collect { case Marker(names) => names }
      (marker, lines.slice(i + 1, end).mkString("", "\n", "\n"), i + 1)
    }

  test("every Scala snippet of the README and the guide is an example's code, as it is"):
    val all = pages.flatMap(page => blocks(page).map((page, _)))
    assert(all.size >= 15, all.size)
    for (page, (marker, text, line)) <- all do
      val names = marker.getOrElse(fail(s"$page:$line: a scala block without a snippet marker before it"))
      assertEquals(text, names.trim.split(' ').map(snippet).mkString("\n"), s"$page:$line ($names)")

  test("the guide's pages hold no indented code, which no check would compile"):
    for page <- pages do
      val lines = Files.readAllLines(page).asScala.toVector
      val indented = lines.indices.filter(i =>
        i > 0 && lines(i - 1).isEmpty && lines(i).startsWith("    ") && !lines(i).trim.startsWith("-")
      )
      assertEquals(indented.map(_ + 1).toList, Nil, s"$page: indented code at these lines")
