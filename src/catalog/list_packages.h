/* checks of category packages: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(pkg_pip, "pkg.pip")
SP_X(pkg_dpkg, "pkg.dpkg")
SP_X(pkg_apt, "pkg.apt")
SP_X(pkg_npm, "pkg.npm")
