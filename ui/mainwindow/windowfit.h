// SPDX-License-Identifier: MIT
#pragma once

#include <QRect>

class QWidget;

namespace tidemark {

// Where a top-level window may go so that all of it can be seen: its size bounded by the
// available area (the screen less panels and docks) and moved inside it. A window larger than
// the screen hides its right side and its status bar, which is where it says what to do next.
// `frame` is what the window manager adds around the client area (title bar, borders); it is
// unknown before the first show, so callers pass an allowance.
QRect fitToAvailable(const QRect &wanted, const QRect &available, const QMargins &frame = {});

// The first window's geometry: `preferred` centred on `available`, shrunk to fit it.
QRect firstWindowGeometry(const QSize &preferred, const QRect &available, const QMargins &frame = {});

// Fits `window`'s current geometry to the available area of the screen it is on (or the
// primary screen), keeping room for a frame not known yet. For a restored geometry, which may
// have been saved on a larger screen.
void fitWindowToScreen(QWidget *window);
// Gives a window without a saved geometry `preferred` size, shrunk and centred to fit its screen.
void placeFirstWindow(QWidget *window, const QSize &preferred);

} // namespace tidemark
