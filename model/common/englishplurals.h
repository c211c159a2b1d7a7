// SPDX-License-Identifier: MIT
#pragma once

#include <QTranslator>

namespace tidemark {

// English plural forms for tr("%n table(s)", nullptr, n) without a compiled .qm file (the
// project ships no translations): "(s)" becomes "s" unless n is 1. Other texts pass through.
class EnglishPlurals : public QTranslator {
    Q_OBJECT
public:
    using QTranslator::QTranslator;
    QString translate(const char *context, const char *sourceText, const char *disambiguation = nullptr,
                      int n = -1) const override;
    bool isEmpty() const override { return false; }
};

// Installs one EnglishPlurals on the application (idempotent; needs a QCoreApplication).
void installEnglishPlurals();

} // namespace tidemark
