// SPDX-License-Identifier: MIT
// The entry points of libberth_guestbook.so: id "guestbook" (its payload is installed to
// share/berth/templates/guestbook), version, one line of description, and the kind. No
// dependencies: an installer reaches other plugins only through its context, and while a
// service it declared is missing it is listed as not installable instead of stopping berthd.
#include "guestbook_installer.hpp"

BERTH_PLUGIN(guestbook::GuestbookPlugin, "guestbook", "1.0.0",
             "the SDK's installer example: a guestbook app", BERTH_KIND_TEMPLATE)
