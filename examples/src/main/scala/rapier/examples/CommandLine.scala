package rapier.examples

/**
 * The examples' command line: an optional port. (A default argument on a Scala 3 `@main` makes the argument required
 * at run time, so the examples take their arguments as strings and read them here.)
 */
object CommandLine:
  val DefaultPort = 8080

  /** The port asked for (`DefaultPort` when none is), or a readable message and exit code 2. */
  def port(program: String, args: Seq[String]): Int =
    parsePort(args) match
      case Right(port) => port
      case Left(message) =>
        System.err.println(s"$program: $message")
        System.err.println(s"usage: $program [PORT]   (default $DefaultPort; 0 picks a free port)")
        sys.exit(2)

  /** The port in `args`, or why they don't name one. */
  def parsePort(args: Seq[String]): Either[String, Int] = args match
    case Seq() => Right(DefaultPort)
    case Seq(p) =>
      p.toIntOption.filter(n => n >= 0 && n <= 65535).toRight(s"a port is a number from 0 to 65535, not '$p'")
    case more => Left(s"one argument at most (a port), not ${more.size}: ${more.mkString(" ")}")
