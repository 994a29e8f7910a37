// A project outside Rapier's build, as a user's would be: it depends on Rapier's published artifacts (publishLocal),
// at the version `run` passes, and compiles and runs the README's first example against them.
scalaVersion := "3.3.7"
libraryDependencies += "dev.rapier" %% "rapier-netty" % sys.props.getOrElse("rapier.version", "unset")
libraryDependencies += "org.slf4j" % "slf4j-nop" % "2.0.17"
scalacOptions ++= Seq("-deprecation", "-feature", "-Werror")
run / fork := true
