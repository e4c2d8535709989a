package source

// STUB (to be replaced by the lowering work).

type native struct{}

func compileUnit(u *unit, c *config) (*native, error) { return nil, errNotImplemented }

func (n *native) call(args []any) ([]any, error) { return nil, errNotImplemented }
