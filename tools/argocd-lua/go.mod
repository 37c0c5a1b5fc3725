module twc.local/argocd-lua

go 1.26.4

require github.com/yuin/gopher-lua v1.1.2
