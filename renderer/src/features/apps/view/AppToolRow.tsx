/** One app tool in the Apps list: its name and title, the App badge, who may call it, and its resource uri. */
import { AppBadge, VisibilityBadge } from '../../../components/AppBadge';
import classes from '../../../components/content.module.css';
import type { AppTool } from './model';

export function AppToolRow({ tool }: { tool: AppTool }) {
  return (
    <>
      <div className={classes.itemTop}>
        <span className={`${classes.itemName} ${classes.oneLine}`} title={tool.name.slice(0, 300)}>
          <bdi>{(tool.title ?? tool.originalName).slice(0, 300)}</bdi>
          {tool.title && tool.title !== tool.originalName && (
            <span className={classes.itemAlt}>
              {' · '}
              <bdi>{tool.originalName.slice(0, 200)}</bdi>
            </span>
          )}
        </span>
        <VisibilityBadge tool={tool} />
        <AppBadge ui={tool.ui} />
      </div>
      <div className={`${classes.itemSub} ${classes.oneLine}`} title={tool.ui.resourceUri.slice(0, 500)}>
        <bdi>{tool.ui.resourceUri.slice(0, 300)}</bdi>
      </div>
    </>
  );
}
