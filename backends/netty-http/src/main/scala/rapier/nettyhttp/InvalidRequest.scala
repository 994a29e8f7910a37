package rapier.nettyhttp

import rapier.server.spi.RequestSyntax.Invalid

/**
 * The cause of a failed decoder result that a strict decoder set on a request it refuses: the status and message to
 * answer it with. Carries no stack trace.
 */
final class InvalidRequest(val problem: Invalid) extends RuntimeException(problem.message, null, false, false)
