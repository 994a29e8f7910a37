import sbt._
import sbt.Keys._
import sbtdynver.DynVerPlugin.autoImport._

/**
 * What a published module's POM says: the organization users write in `libraryDependencies`, the licence, where the
 * sources live and who answers for them. The version comes from git tags (sbt-dynver): `v0.1.0` on the commit built
 * is `0.1.0`; any other commit a `-SNAPSHOT` after the last tag.
 */
object Publishing {
  val home = "https://github.com/rapier-http/rapier"

  val settings: Seq[Setting[_]] = Seq(
    ThisBuild / organization := "dev.rapier",
    ThisBuild / organizationName := "Rapier",
    ThisBuild / homepage := Some(url(home)),
    ThisBuild / licenses := List("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt")),
    ThisBuild / scmInfo := Some(ScmInfo(url(home), s"scm:git:$home.git")),
    ThisBuild / developers := List(Developer("rapier", "The Rapier authors", "", url(home))),
    // No build date in the version of a changed tree, which would have every module resolve again each minute
    ThisBuild / version := {
      val described = dynverGitDescribeOutput.value
      described match {
        case Some(d) if d.isCleanAfterTag => d.ref.dropPrefix
        case Some(d) if d.hasNoTags => s"0.0.0-${d.commitSuffix.sha}-SNAPSHOT"
        case Some(d) => s"${d.ref.dropPrefix}-${d.commitSuffix.distance}-${d.commitSuffix.sha}-SNAPSHOT"
        case None => "0.0.0-SNAPSHOT"
      }
    },
    ThisBuild / versionScheme := Some("early-semver"),
    ThisBuild / publishMavenStyle := true,
    ThisBuild / pomIncludeRepository := (_ => false)
  )
}
