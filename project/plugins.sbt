addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.6.2")
addSbtPlugin("pl.project13.scala" % "sbt-jmh" % "0.4.8")
