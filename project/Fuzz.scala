import sbt._
import sbt.Keys._

/** The fuzz module's tests: Jazzer's JUnit targets, each fuzzed in a JVM of its own for `JAZZER_MAX_DURATION`. */
object Fuzz {
  val settings: Seq[Setting[_]] = Seq(
    testFrameworks += new TestFramework("com.github.sbt.junit.jupiter.api.JupiterFramework"),
    // JUnit finds the tests in a class; sbt only needs the classes, by the Jupiter framework's fingerprint.
    Test / definedTests := {
      val jupiter = new sbt.testing.AnnotatedFingerprint {
        def isModule = false
        def annotationName = "com.github.sbt.junit.jupiter.api.JupiterTestFingerprint"
      }
      ((Test / scalaSource).value ** "*FuzzTest.scala").get.map { file =>
        val pkg = IO.relativize((Test / scalaSource).value, file.getParentFile).get.replace('/', '.')
        new TestDefinition(s"$pkg.${file.base}", jupiter, false, Array(new sbt.testing.SuiteSelector))
      }
    },
    Test / testGrouping := {
      val jvmOptions = (Test / javaOptions).value.toVector
      val directory = baseDirectory.value
      (Test / definedTests).value.map { test =>
        val env = Map(
          "JAZZER_FUZZ" -> sys.env.getOrElse("JAZZER_FUZZ", "1"),
          "JAZZER_MAX_DURATION" -> sys.env.getOrElse("JAZZER_MAX_DURATION", "30s")
        )
        val options = ForkOptions().withRunJVMOptions(jvmOptions).withEnvVars(env).withWorkingDirectory(directory)
        Tests.Group(test.name, Seq(test), Tests.SubProcess(options))
      }
    }
  )
}
