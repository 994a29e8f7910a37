package rapier.testkit

/**
 * Request targets that try to reach a file outside a static service's root, or one it must not serve, for a service
 * at `/s` over a root holding `index.html`, `.env`, `.git/config`, a link `out` to the secret file beside the root
 * and a link `up` to the root's parent: each must get a 400 or a 404, never the secret.
 */
object StaticTraversals:
  val shapes: List[String] = List(
    "/s/../secret.txt",
    "/s/%2e%2e/secret.txt",
    "/s/%2E%2E/secret.txt",
    "/s/.%2e/secret.txt",
    "/s/%2e./secret.txt",
    "/s/..%2fsecret.txt",
    "/s/..%2Fsecret.txt",
    "/s/%2e%2e%2fsecret.txt",
    "/s/..%5csecret.txt",
    "/s/..%5Csecret.txt",
    "/s/..\\secret.txt",
    "/s/%5c..%5csecret.txt",
    "/s/a/../../secret.txt",
    "/s/./../secret.txt",
    "/s/index.html/../../secret.txt",
    "/s/%252e%252e/secret.txt",
    "/s/%252e%252e%252fsecret.txt",
    "/s/%c0%ae%c0%ae/secret.txt",
    "/s/%e0%80%ae%e0%80%ae/secret.txt",
    "/s/%uff0e%uff0e/secret.txt",
    "/s/%ef%bc%8e%ef%bc%8e/secret.txt",
    "/s/..%c0%afsecret.txt",
    "/s//secret.txt",
    "/s/%2fsecret.txt",
    "/s/%2F..%2Fsecret.txt",
    "/s/%2Fetc%2Fpasswd",
    "/s/secret.txt%00.html",
    "/s/..%00/secret.txt",
    "/s/%00",
    "/s/C:%5cWindows%5cwin.ini",
    "/s/file:%2f%2f%2fetc%2fpasswd",
    "/s/%20../secret.txt",
    "/s/..%20/secret.txt",
    "/s/...../secret.txt",
    "/s/..;/secret.txt",
    "/s/~/secret.txt",
    "/s/out",
    "/s/up/secret.txt",
    "/s/.env",
    "/s/%2eenv",
    "/s/.git/config",
    "/s/index.html%2f..%2f..%2fsecret.txt",
    "/s/%2e",
    "/s/.",
    "/../secret.txt",
    "/s/../../../../../../etc/passwd",
    "http://localhost/s/../secret.txt"
  )
