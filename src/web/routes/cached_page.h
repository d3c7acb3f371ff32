// A page rendered once with its header blocks prepared once (see Response): the pages every
// visitor without a session gets, served without a copy.
#pragma once

#include <map>
#include <string>

#include "web/http.h"

namespace ridge::web::routes {

struct CachedPage {
  std::string body;
  std::string etag;
  std::string head;           // every header line of the 200 response, Content-Length included
  std::string personal_head;  // the same lines for a personal answer, for pages only served so (else empty)
  GzipVariant gzip;           // its body empty when gzip does not make the page smaller, or it is personal
  // `body` in a memory file when it is large (BodyFile::kMinBytes), for sendfile; else null.
  std::shared_ptr<const BodyFile> file;
};
// By path; a paid question's other copies under "/q/SLUG#locked" and "/q/SLUG#paywall".
using PageCache = std::map<std::string, CachedPage, std::less<>>;

// `body` with its ETag (a hash of the bytes) and header blocks. `personal`: the page is only
// ever answered as personal (the locked and paywalled copies of a paid question), so its
// personal header block is prepared with it.
CachedPage make_cached_page(std::string body, bool personal = false);

}  // namespace ridge::web::routes
