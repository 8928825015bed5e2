#pragma once
// llama-imatrix's own runs the computed matrices are checked against: the text they ran over,
// named as given (the files record the path), and the short runs kept in
// tests/data/imatrix-oracle (its README says how they were made).

#include <QString>

#ifndef GGUFX_SOURCE_DIR
#error "GGUFX_SOURCE_DIR must be defined by the build"
#endif

namespace testsupport {

inline const QString kImatrixText = QStringLiteral("/usr/share/common-licenses/GPL-3");

inline QString imatrixOraclePath(const QString& name)
{
    return QStringLiteral(GGUFX_SOURCE_DIR "/tests/data/imatrix-oracle/") + name;
}

}  // namespace testsupport
