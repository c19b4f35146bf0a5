/**
 * A tool's icon, rendered only when it is safe: a `data:` URI of a raster image type (PNG, JPEG,
 * GIF, WebP) of reasonable size. SVG can carry script, remote URLs leak that you looked (and the
 * CSP blocks them anyway), `javascript:` is never a URL we load: those get a placeholder that
 * says why.
 */
import { Tooltip } from '@mantine/core';
import { judgeIcons } from './icons';
import classes from './tools.module.css';

export function ToolIcon({ icons }: { icons: unknown[] | undefined }) {
  const verdict = judgeIcons(icons);
  if (verdict?.safe) return <img className={classes.icon} src={verdict.src} alt="" referrerPolicy="no-referrer" draggable={false} data-testid="tool-icon" />;
  if (verdict && !verdict.safe) {
    return (
      <Tooltip label={verdict.reason} multiline maw={320} openDelay={300}>
        <span className={`${classes.iconPlaceholder} ${classes.iconBlocked}`} data-testid="tool-icon-blocked" aria-label={verdict.reason}>
          ⊘
        </span>
      </Tooltip>
    );
  }
  return <span className={classes.iconPlaceholder} aria-hidden="true">ƒ</span>;
}
