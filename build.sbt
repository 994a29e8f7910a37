// Rapier: typed HTTP endpoints, served with next to no overhead.

ThisBuild / organization := "rapier"
ThisBuild / version := "0.1.0-SNAPSHOT"
ThisBuild / scalaVersion := "3.3.7"
ThisBuild / scalacOptions ++= Seq(
  "-deprecation",
  "-feature",
  "-unchecked",
  "-Wunused:imports,privates,locals,implicits",
  "-Werror"
)
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17")

val versions = new {
  val netty = "4.2.18.Final"
  val slf4j = "2.0.17"
  val munit = "1.3.0"
  val munitScalacheck = "1.3.0"
}

val munit = "org.scalameta" %% "munit" % versions.munit

// Netty's leak detector at its strictest in every test JVM: a LEAK fails the build (see rapier.testkit.LeakDetection).
val testSettings = Seq(
  Test / fork := true,
  Test / javaOptions ++= Seq(
    "-Dio.netty.leakDetection.level=paranoid",
    "-Dio.netty.leakDetection.targetRecords=8",
    "-Xmx1g"
  ),
  Test / testOptions += Tests.Argument(TestFrameworks.MUnit, "-b"),
  libraryDependencies += munit % Test
)

lazy val root = (project in file("."))
  .aggregate(core, server, netty, testkit, examples, bench)
  .settings(name := "rapier", publish / skip := true)

lazy val core = (project in file("core"))
  .settings(testSettings)
  .settings(
    name := "rapier-core",
    libraryDependencies += "org.scalameta" %% "munit-scalacheck" % versions.munitScalacheck % Test
  )

lazy val server = (project in file("server"))
  .dependsOn(core)
  .settings(testSettings)
  .settings(
    name := "rapier-server",
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-api" % versions.slf4j,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

lazy val netty = (project in file("netty"))
  .dependsOn(server, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty",
    libraryDependencies ++= Seq(
      "io.netty" % "netty-codec-http" % versions.netty,
      "io.netty" % "netty-handler" % versions.netty,
      "io.netty" % "netty-transport-native-epoll" % versions.netty classifier "linux-x86_64",
      "io.netty" % "netty-transport-native-epoll" % versions.netty classifier "linux-aarch_64",
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

lazy val testkit = (project in file("testkit"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-testkit",
    libraryDependencies ++= Seq(
      munit,
      "io.netty" % "netty-common" % versions.netty,
      "io.netty" % "netty-buffer" % versions.netty,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

lazy val examples = (project in file("examples"))
  .dependsOn(netty, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-examples",
    publish / skip := true,
    libraryDependencies += "org.slf4j" % "slf4j-simple" % versions.slf4j,
    run / fork := true,
    run / connectInput := true,
    Compile / run / mainClass := Some("rapier.examples.runHelloWorld")
  )

lazy val bench = (project in file("bench"))
  .dependsOn(netty, testkit)
  .enablePlugins(JmhPlugin)
  .settings(
    name := "rapier-bench",
    publish / skip := true,
    libraryDependencies += "org.slf4j" % "slf4j-nop" % versions.slf4j
  )
