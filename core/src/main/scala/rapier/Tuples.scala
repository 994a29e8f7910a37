package rapier

/**
 * Combined values at run time: the values of inputs and outputs, concatenated or split by their arities (see
 * [[Combine]]). A combined value of arity 0 is `()`, of arity 1 the value itself, of more a tuple.
 */
object Tuples:
  /** The `index`-th of the `arity` values a combined value stands for. */
  def element(value: Any, arity: Int, index: Int): Any =
    if arity == 1 then value else value.asInstanceOf[Product].productElement(index)

  /** The combined value of `arity` values taken from `values`, starting at `from`. */
  def combine(values: Array[Any], from: Int, arity: Int): Any = arity match
    case 0 => ()
    case 1 => values(from)
    case n =>
      val elements = new Array[Object](n)
      System.arraycopy(values, from, elements, 0, n)
      Tuple.fromArray(elements)

  /** Concatenates two combined values of known arities. */
  def concat(left: Any, leftArity: Int, right: Any, rightArity: Int): Any =
    if leftArity == 0 then right
    else if rightArity == 0 then left
    else
      val values = new Array[Any](leftArity + rightArity)
      var i = 0
      while i < leftArity do
        values(i) = element(left, leftArity, i)
        i += 1
      while i < leftArity + rightArity do
        values(i) = element(right, rightArity, i - leftArity)
        i += 1
      combine(values, 0, leftArity + rightArity)

  /** Splits a combined value into the parts of two arities; the inverse of `concat`. */
  def split(value: Any, leftArity: Int, rightArity: Int): (Any, Any) =
    if leftArity == 0 then ((), value)
    else if rightArity == 0 then (value, ())
    else
      val values = Array.tabulate[Any](leftArity + rightArity)(element(value, leftArity + rightArity, _))
      (combine(values, 0, leftArity), combine(values, leftArity, rightArity))

  /** The value of a single-field or multi-field case class's fields, as a `Product` of them. */
  def asProduct(value: Any, arity: Int): Product = if arity == 1 then Tuple1(value) else value.asInstanceOf[Product]

  /** The combined value of a case class's fields. */
  def fromProduct(p: Product, arity: Int): Any = if arity == 1 then p.productElement(0) else Tuple.fromProduct(p)
